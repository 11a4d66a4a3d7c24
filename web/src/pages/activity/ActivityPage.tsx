import { Badge, Group, Stack, Switch, Title } from '@mantine/core';
import { useViewportSize } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../../api/client';
import type { EventRow } from '../../api/types';
import { useEnvironment } from '../../shell/ProjectScope';
import { ActivityFilters } from './ActivityFilters';
import { EventDetail } from './EventDetail';
import { EventsTable } from './EventsTable';
import { readFilters, toQuery, writeFilters, type ActivityFilters as Filters } from './filters';
import { useLiveEvents } from './useLiveEvents';
import { ErrorAlert } from '../../components/ErrorAlert';

/** `?event_id=`: the event open beside the list, from the list or (a shared link) from the API. */
function useOpenEvent(environmentId: number, events: EventRow[], uuid: string | null) {
  const listed = uuid ? events.find((e) => e.uuid === uuid) : undefined;
  const fetched = useQuery({
    queryKey: ['event', environmentId, uuid],
    queryFn: ({ signal }) => api<EventRow>(`/api/environments/${environmentId}/events/${encodeURIComponent(uuid!)}/`, { signal }),
    enabled: uuid !== null && listed === undefined,
  });
  return listed ?? fetched.data;
}

/** Activity: the environment's events as they arrive, filtered, each one's properties a click away. */
export function Component() {
  const environment = useEnvironment();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => readFilters(params), [params]);
  const query = useMemo(() => toQuery(filters), [filters]);
  const live = params.get('live') !== 'off';
  const { events, loading, error, hasOlder, loadOlder, arrived } = useLiveEvents(environment.id, query, live);
  const openId = params.get('event_id');
  const open = useOpenEvent(environment.id, events, openId);
  const { height } = useViewportSize();

  const setParam = useCallback(
    (name: string, value: string | null) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        if (value === null) next.delete(name);
        else next.set(name, value);
        return next;
      }),
    [setParams],
  );
  const apply = useCallback((next: Filters) => setParams((current) => writeFilters(next, current)), [setParams]);
  const onOpen = useCallback((event: EventRow) => setParam('event_id', event.uuid), [setParam]);

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={2}>Activity</Title>
          {live && (
            <Badge color="green" variant="dot" data-testid="live-badge">
              live{arrived > 0 ? `: ${arrived} new` : ''}
            </Badge>
          )}
        </Group>
        <Switch label="Live" checked={live} onChange={(e) => setParam('live', e.currentTarget.checked ? null : 'off')} />
      </Group>
      <ActivityFilters value={filters} onApply={apply} />
      {error !== null && <ErrorAlert message={error instanceof Error ? error.message : 'The events could not be read.'} />}
      {!loading && (
        <EventsTable events={events} onOpen={onOpen} hasOlder={hasOlder} onLoadOlder={loadOlder} height={Math.max(300, height - 260)} />
      )}
      <EventDetail event={openId ? open : undefined} onClose={() => setParam('event_id', null)} />
    </Stack>
  );
}
