import { DeleteAndLeave } from '../../components/DeleteAndLeave';
import { useSaveInsight, type Insight } from '../../api/insights';
import { useEnvironment } from '../../shell/ProjectScope';

/** Deletes the insight as PostHog does (`deleted: true`; hard deletes are refused), then back to the list. */
export function DeleteInsight({ insight }: { insight: Insight }) {
  const environment = useEnvironment();
  const save = useSaveInsight(environment.id);
  return (
    <DeleteAndLeave
      noun="insight"
      remove={() => save.mutateAsync({ id: insight.id, body: { deleted: true } })}
      to={`/project/${environment.id}/insights`}
    >
      It leaves the list of insights, and its subscriptions stop sending.
    </DeleteAndLeave>
  );
}
