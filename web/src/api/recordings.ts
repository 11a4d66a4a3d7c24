/**
 * Session recordings through PostHog's API: the list (`session_recordings/` with its RecordingsQuery
 * filters), one recording, its snapshots (the two-step blob_v2 protocol posthog-js's player uses),
 * its sharing configuration, and the session's events (an EventsQuery on `$session_id`).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, type Paginated } from './client';
import type { EventRow, EventsQueryResponse } from './types';

export interface RecordingPerson {
  id: number | string | null;
  uuid: string;
  name: string | null;
  distinct_ids: string[];
  properties: Record<string, unknown>;
}

/** PostHog's SessionRecordingSerializer: the fields the pages show. */
export interface Recording {
  id: string;
  distinct_id: string;
  viewed: boolean;
  recording_duration: number;
  active_seconds: number;
  start_time: string | null;
  end_time: string | null;
  click_count: number;
  keypress_count: number;
  console_log_count: number;
  console_warn_count: number;
  console_error_count: number;
  start_url: string | null;
  person: RecordingPerson;
  ongoing: boolean;
}

export interface RecordingsPage extends Paginated<Recording> {
  has_next: boolean;
}

/** The list's filters, as the page keeps them in its address. */
export interface RecordingFilters {
  /** A distinct id, or a person's UUID (all their distinct ids). */
  person: string;
  /** Whole seconds; 0 for none. */
  minDuration: number;
  /** `-3d`, `-7d`… or an ISO date. */
  dateFrom: string;
  /** An ISO date, or empty for now. */
  dateTo: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The filters as PostHog's RecordingsQuery parameters. */
export function recordingsSearch(filters: RecordingFilters, offset = 0): URLSearchParams {
  const search = new URLSearchParams({ date_from: filters.dateFrom || '-3d', limit: '50', offset: String(offset) });
  if (filters.dateTo) search.set('date_to', filters.dateTo);
  const person = filters.person.trim();
  if (person && UUID.test(person)) search.set('person_uuid', person);
  else if (person) search.set('distinct_ids', JSON.stringify([person]));
  // PostHog's duration filter: "longer than N seconds" is `duration gt N-1` on whole seconds.
  if (filters.minDuration > 0) {
    search.set(
      'having_predicates',
      JSON.stringify([{ key: 'duration', type: 'recording', operator: 'gt', value: filters.minDuration - 1 }]),
    );
  }
  return search;
}

export function useRecordings(environmentId: number, filters: RecordingFilters, offset: number) {
  return useQuery({
    queryKey: ['recordings', environmentId, 'list', filters, offset],
    queryFn: ({ signal }) =>
      api<RecordingsPage>(`/api/environments/${environmentId}/session_recordings/?${recordingsSearch(filters, offset).toString()}`, {
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

const recordingPath = (environmentId: number, id: string) =>
  `/api/environments/${environmentId}/session_recordings/${encodeURIComponent(id)}/`;

export function useRecording(environmentId: number, id: string) {
  return useQuery({
    queryKey: ['recordings', environmentId, 'one', id],
    queryFn: ({ signal }) => api<Recording>(recordingPath(environmentId, id), { signal }),
    retry: (count, error) => !(error instanceof ApiError && error.status === 404) && count < 2,
  });
}

/** Marks the recording as seen by this user (PostHog's player does so when it opens one). */
export function markViewed(environmentId: number, id: string) {
  return api<Recording>(recordingPath(environmentId, id), { method: 'PATCH', body: { viewed: true } });
}

interface SnapshotSource {
  source: string;
  blob_key: string;
  start_timestamp: string;
  end_timestamp: string;
}

/** PostHog lets a call fetch at most this many blocks. */
const BLOB_KEYS_PER_CALL = 20;

/**
 * The recording's stored lines (`[windowId, event]`, events as posthog-js sent them), block by
 * block: first the list of sources, then the blocks in ranges.
 */
export async function fetchSnapshotLines(environmentId: number, id: string, signal?: AbortSignal): Promise<string[]> {
  const base = `${recordingPath(environmentId, id)}snapshots`;
  const { sources } = await api<{ sources: SnapshotSource[] }>(base, { signal });
  const keys = sources.map((s) => Number(s.blob_key)).sort((a, b) => a - b);
  const lines: string[] = [];
  for (let i = 0; i < keys.length; i += BLOB_KEYS_PER_CALL) {
    const start = keys[i]!;
    const end = keys[Math.min(i + BLOB_KEYS_PER_CALL, keys.length) - 1]!;
    const search = new URLSearchParams({ source: 'blob_v2', start_blob_key: String(start), end_blob_key: String(end) });
    const response = await fetch(`${base}?${search.toString()}`, { credentials: 'same-origin', signal });
    if (!response.ok) {
      let detail = `The recording's data could not be read (${response.status}).`;
      try {
        detail = ((await response.json()) as { detail?: string }).detail ?? detail;
      } catch {
        // not JSON: keep the generic message
      }
      throw new ApiError(response.status, { detail });
    }
    for (const line of (await response.text()).split('\n')) if (line) lines.push(line);
  }
  return lines;
}

export interface Sharing {
  enabled: boolean;
  access_token: string;
}

const sharingPath = (environmentId: number, id: string) => `${recordingPath(environmentId, id)}sharing/`;

export function useSharing(environmentId: number, id: string) {
  return useQuery({
    queryKey: ['recordings', environmentId, 'sharing', id],
    queryFn: ({ signal }) => api<Sharing>(sharingPath(environmentId, id), { signal }),
  });
}

export function useSetSharing(environmentId: number, id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => api<Sharing>(sharingPath(environmentId, id), { method: 'PATCH', body: { enabled } }),
    onSuccess: (sharing) => client.setQueryData(['recordings', environmentId, 'sharing', id], sharing),
  });
}

/** The session's events in time order (PostHog's player lists them beside the replay). */
export function useSessionEvents(environmentId: number, recording: Recording | undefined) {
  return useQuery({
    queryKey: ['recordings', environmentId, 'events', recording?.id],
    enabled: recording !== undefined,
    queryFn: async ({ signal }) => {
      const start = Date.parse(recording!.start_time ?? '') || Date.now() - 86_400_000;
      const end = Date.parse(recording!.end_time ?? '') || Date.now();
      const query = {
        kind: 'EventsQuery',
        select: ['*'],
        orderBy: ['timestamp ASC'],
        properties: [{ key: '$session_id', operator: 'exact', value: recording!.id, type: 'event' }],
        // Events reach the server around the snapshots: a margin on both sides.
        after: new Date(start - 60_000).toISOString(),
        before: new Date(end + 60_000).toISOString(),
        limit: 1000,
      };
      const answer = await api<EventsQueryResponse<[EventRow]>>(`/api/environments/${environmentId}/query/`, {
        method: 'POST',
        body: { query },
        signal,
      });
      return answer.results.map((row) => row[0]);
    },
  });
}
