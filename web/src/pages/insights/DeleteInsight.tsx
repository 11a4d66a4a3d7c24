import { useNavigate } from 'react-router';
import { useSaveInsight, type Insight } from '../../api/insights';
import { ConfirmAction } from '../../components/ConfirmAction';
import { useEnvironment } from '../../shell/ProjectScope';

/** Deletes the insight as PostHog does (`deleted: true`; hard deletes are refused), then back to the list. */
export function DeleteInsight({ insight }: { insight: Insight }) {
  const environment = useEnvironment();
  const save = useSaveInsight(environment.id);
  const navigate = useNavigate();
  return (
    <ConfirmAction
      label="Delete"
      variant="subtle"
      size="sm"
      title="Delete this insight?"
      confirmLabel="Delete insight"
      action={async () => {
        await save.mutateAsync({ id: insight.id, body: { deleted: true } });
        await navigate(`/project/${environment.id}/insights`);
      }}
    >
      It leaves the list of insights, and its subscriptions stop sending.
    </ConfirmAction>
  );
}
