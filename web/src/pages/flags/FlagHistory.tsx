import { Code, Text } from '@mantine/core';
import { flagActivity, type FlagFilters } from '../../api/flags';
import type { ActivityChange } from '../../api/activity';
import { ActivityLog, showValue } from '../../components/ActivityLog';
import { describeRelease } from './flag-form';

/** Release conditions are long: summed up in a line, in full below on request. */
function flagChange(change: ActivityChange) {
  if (change.field !== 'filters') return null;
  return (
    <div data-testid="history-change">
      <Text size="sm">
        Changed <b>release conditions</b>: {describeRelease((change.before ?? {}) as FlagFilters)} →{' '}
        {describeRelease((change.after ?? {}) as FlagFilters)}
      </Text>
      <details>
        <summary>Changed filters in full</summary>
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
          {showValue(change.before)}
        </Code>
        <Code block mt={4} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
          {showValue(change.after)}
        </Code>
      </details>
    </div>
  );
}

/** The flag's change history, newest first (`feature_flags/:id/activity/`). */
export function FlagHistory({ projectId, flagId }: { projectId: number; flagId: number }) {
  const { path, queryKey } = flagActivity(projectId, flagId);
  return <ActivityLog queryKey={queryKey} path={path} noun="flag" testId="flag-history" renderChange={flagChange} />;
}
