import { useParams } from 'react-router';
import { useInsightByShortId } from '../../api/insights';
import { Loading } from '../../components/Loading';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { NotFound } from '../../shell/NotFound';
import { useEnvironment } from '../../shell/ProjectScope';
import { InsightEditor } from './InsightEditor';

/** `insights/new` and `insights/:shortId`: the insight builder, always editable as PostHog's is. */
export function Component() {
  const { shortId } = useParams();
  const environment = useEnvironment();
  const insight = useInsightByShortId(environment.id, shortId);
  if (shortId === undefined) return <InsightEditor key="new" insight={null} />;
  if (insight.isPending) return <Loading h={200} />;
  if (insight.error) return <ErrorNotice error={insight.error} title="The insight could not be loaded" />;
  if (!insight.data) return <NotFound />;
  return <InsightEditor key={insight.data.id} insight={insight.data} />;
}
