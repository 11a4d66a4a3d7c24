import { Anchor, Badge, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Loading } from '../../components/Loading';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useSubscribedResource, type ResourceInfo } from './resource';

/**
 * The insight or dashboard of a subscription page: its page renders once it is known, under a line
 * naming it with a link back to it; a missing one is said plainly.
 */
export function ResourceGate({ children }: { children: (resource: ResourceInfo) => ReactNode }) {
  const state = useSubscribedResource();
  if (state.status === 'loading') return <Loading p="xl" />;
  if (state.status === 'error') return <ErrorNotice error={state.error} title="The insight or dashboard could not be loaded" />;
  if (state.status === 'missing')
    return <ErrorNotice error="There is no such insight or dashboard in this environment." title="Not found" />;
  return children(state);
}

/** "Insight: <name>" (or dashboard), linking to its page. */
export function ResourceLine({ resource }: { resource: ResourceInfo }) {
  return (
    <Group gap="xs">
      <Text size="sm" c="dimmed">
        {resource.kind === 'insight' ? 'Insight' : 'Dashboard'}
      </Text>
      <Anchor component={Link} to={resource.pagePath} size="sm" data-testid="resource-link">
        {resource.name}
      </Anchor>
      {resource.deleted && (
        <Badge color="red" size="sm">
          Deleted
        </Badge>
      )}
    </Group>
  );
}
