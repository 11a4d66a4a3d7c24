/**
 * Persons, as PostHog's persons API serves them: the list (search, paged), one person (by distinct
 * id, id or uuid), its events (an EventsQuery with `personId`), recordings and cohorts; delete and
 * split.
 */
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Paginated } from './client';
import type { EventRow, EventsQueryResponse } from './types';

/** PostHog's PersonSerializer. */
export interface Person {
  id: number;
  uuid: string;
  name: unknown;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
  is_identified?: boolean;
}

/** The live cohorts a person is in (PostHog's `persons/cohorts/`), with their calculation's state. */
export interface PersonCohort {
  id: number;
  name: string | null;
  count: number | null;
  is_calculating: boolean;
  errors_calculating: number;
}

/** The fields of a session recording the person page shows. */
export interface RecordingSummary {
  id: string;
  distinct_id: string;
  start_time: string;
  end_time: string;
  recording_duration: number;
  click_count: number;
  start_url: string | null;
  ongoing?: boolean;
}

export const PERSONS_PAGE_SIZE = 100;
const PERSON_EVENTS_PAGE = 100;

const base = (environmentId: number) => `/api/environments/${environmentId}`;
const personsKey = (environmentId: number) => ['persons', environmentId] as const;

/** One page of the persons list, newest first; `search` matches email, name, distinct id or uuid. */
export function usePersons(environmentId: number, search: string, offset: number) {
  return useQuery({
    queryKey: [...personsKey(environmentId), 'list', search, offset],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ limit: String(PERSONS_PAGE_SIZE), offset: String(offset) });
      if (search) params.set('search', search);
      return api<Paginated<Person>>(`${base(environmentId)}/persons/?${params}`, { signal });
    },
    placeholderData: keepPreviousData,
  });
}

/** The person one distinct id belongs to (`null` when none has it). */
export function usePersonByDistinctId(environmentId: number, distinctId: string) {
  return useQuery({
    queryKey: [...personsKey(environmentId), 'by-distinct-id', distinctId],
    queryFn: async ({ signal }) => {
      const params = new URLSearchParams({ distinct_id: distinctId });
      const page = await api<Paginated<Person>>(`${base(environmentId)}/persons/?${params}`, { signal });
      return page.results[0] ?? null;
    },
  });
}

/** A person by its id or uuid (PostHog's `persons/:id/`). */
export function usePerson(environmentId: number, ref: string) {
  return useQuery({
    queryKey: [...personsKey(environmentId), 'one', ref],
    queryFn: ({ signal }) => api<Person>(`${base(environmentId)}/persons/${encodeURIComponent(ref)}/`, { signal }),
    retry: false,
  });
}

/** The person's events, newest first, a page at a time. */
export function usePersonEvents(environmentId: number, personUuid: string) {
  return useInfiniteQuery({
    queryKey: [...personsKey(environmentId), 'events', personUuid],
    initialPageParam: 0,
    queryFn: async ({ pageParam, signal }) => {
      const query = {
        kind: 'EventsQuery',
        select: ['*'],
        orderBy: ['timestamp DESC'],
        personId: personUuid,
        limit: PERSON_EVENTS_PAGE,
        offset: pageParam,
      };
      const answer = await api<EventsQueryResponse<[EventRow]>>(`${base(environmentId)}/query/`, {
        method: 'POST',
        body: { query },
        signal,
      });
      return { events: answer.results.map((row) => row[0]), hasMore: answer.hasMore, offset: pageParam };
    },
    getNextPageParam: (last) => (last.hasMore ? last.offset + PERSON_EVENTS_PAGE : undefined),
  });
}

/** The person's session recordings, newest first. */
export function usePersonRecordings(environmentId: number, personUuid: string) {
  return useQuery({
    queryKey: [...personsKey(environmentId), 'recordings', personUuid],
    queryFn: ({ signal }) =>
      api<Paginated<RecordingSummary>>(
        `${base(environmentId)}/session_recordings/?${new URLSearchParams({ person_uuid: personUuid, limit: '50' })}`,
        { signal },
      ),
  });
}

/** The cohorts the person is in now. */
export function usePersonCohorts(environmentId: number, personId: number) {
  return useQuery({
    queryKey: [...personsKey(environmentId), 'cohorts', personId],
    queryFn: ({ signal }) => api<{ results: PersonCohort[] }>(`${base(environmentId)}/persons/cohorts/?person_id=${personId}`, { signal }),
  });
}

export interface DeletePersonOptions {
  deleteEvents: boolean;
  deleteRecordings: boolean;
}

/** PostHog's person delete: 202; events and recordings follow in the background when asked. */
export function useDeletePerson(environmentId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ person, deleteEvents, deleteRecordings }: DeletePersonOptions & { person: Person }) => {
      const params = new URLSearchParams();
      if (deleteEvents) params.set('delete_events', 'true');
      if (deleteRecordings) params.set('delete_recordings', 'true');
      const query = params.size > 0 ? `?${params}` : '';
      return api<void>(`${base(environmentId)}/persons/${person.uuid}/${query}`, { method: 'DELETE' });
    },
    onSuccess: () => client.invalidateQueries({ queryKey: personsKey(environmentId) }),
  });
}

/**
 * PostHog's split: every distinct id but `main_distinct_id` (which stays with this person; the
 * first one when none is chosen) becomes a person of its own.
 */
export function useSplitPerson(environmentId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ person, mainDistinctId }: { person: Person; mainDistinctId: string | null }) =>
      api<{ success: boolean }>(`${base(environmentId)}/persons/${person.uuid}/split/`, {
        method: 'POST',
        body: mainDistinctId ? { main_distinct_id: mainDistinctId } : {},
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: personsKey(environmentId) }),
  });
}
