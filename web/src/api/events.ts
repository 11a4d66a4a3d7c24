import { api } from './client';
import type { EventRow, EventsQueryResponse, PropertyFilter } from './types';

export interface EventsQueryInput {
  event?: string | null;
  properties?: PropertyFilter[];
  after?: string | null;
  before?: string | null;
  limit?: number;
}

/** Events newest first, through PostHog's `POST /api/environments/:id/query/` with an EventsQuery. */
export async function queryEvents(environmentId: number, input: EventsQueryInput, signal?: AbortSignal) {
  const query = {
    kind: 'EventsQuery',
    select: ['*'],
    orderBy: ['timestamp DESC'],
    event: input.event || null,
    properties: input.properties ?? [],
    after: input.after ?? null,
    before: input.before ?? null,
    limit: input.limit ?? 100,
  };
  const answer = await api<EventsQueryResponse<[EventRow]>>(`/api/environments/${environmentId}/query/`, {
    method: 'POST',
    body: { query },
    signal,
  });
  return { events: answer.results.map((row) => row[0]), hasMore: answer.hasMore };
}
