import { Center, Loader } from '@mantine/core';
import { useCallback, useState } from 'react';
import { usePersonEvents, type Person } from '../../api/persons';
import type { EventRow } from '../../api/types';
import { useEnvironment } from '../../shell/ProjectScope';
import { EventDetail } from '../activity/EventDetail';
import { EventsTable } from '../activity/EventsTable';
import { ErrorAlert } from '../../components/ErrorAlert';

/** The person's events over all its distinct ids (an EventsQuery with `personId`), newest first. */
export function PersonEvents({ person }: { person: Person }) {
  const environment = useEnvironment();
  const events = usePersonEvents(environment.id, person.uuid);
  const [open, setOpen] = useState<EventRow | undefined>(undefined);
  const { fetchNextPage } = events;
  const loadOlder = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  if (events.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label="Loading events" />
      </Center>
    );
  }
  if (events.isError) {
    return <ErrorAlert message={events.error.message} />;
  }
  const rows = events.data.pages.flatMap((page) => page.events);
  return (
    <>
      <EventsTable events={rows} onOpen={setOpen} hasOlder={events.hasNextPage} onLoadOlder={loadOlder} height={520} />
      <EventDetail event={open} onClose={() => setOpen(undefined)} />
    </>
  );
}
