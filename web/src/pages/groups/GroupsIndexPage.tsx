import { Stack, Text, Title } from '@mantine/core';
import { Navigate } from 'react-router';
import { useGroupTypes } from '../../api/groups';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { PeopleTabs } from '../persons/PeopleTabs';
import { Loading } from '../../components/Loading';

/** `/project/:id/groups`: the first group type's list, or what groups are when there are none yet. */
export function Component() {
  const environment = useEnvironment();
  const types = useGroupTypes(environment.id);
  if (types.isPending) {
    return <Loading p="xl" />;
  }
  if (types.isError) return <ErrorNotice error={types.error} />;
  const first = types.data[0];
  if (first) return <Navigate to={`/project/${environment.id}/groups/${first.group_type_index}`} replace />;
  return (
    <Stack gap="sm">
      <Title order={2}>Groups</Title>
      <PeopleTabs active="groups" />
      <Text c="dimmed" data-testid="groups-empty">
        No groups yet. Groups (companies, teams, …) appear when events name them: posthog.group(&apos;company&apos;, &apos;id&apos;) in
        posthog-js, or a <span className="mono">$groups</span> property on an event.
      </Text>
    </Stack>
  );
}
