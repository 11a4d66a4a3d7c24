/**
 * The persons behind one value of an insight: PostHog's ActorsQuery over an InsightActorsQuery (a
 * trends value) or a FunnelsActorsQuery (a funnel step), on `POST /api/environments/:id/query/`,
 * a page at a time.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from './client';
import type { FunnelsQuery, LifecycleQuery, RetentionQuery, StickinessQuery, TrendsQuery } from './insights';

/** What PostHog's persons modal asks about: a trends value or a funnel step. */
export type ActorsSource =
  | {
      kind: 'InsightActorsQuery';
      source: TrendsQuery;
      /** The series' `action.order`. */
      series: number;
      /** The bucket's `days` entry; absent for a total over the range. */
      day?: string;
      breakdown?: string;
      compare?: 'current' | 'previous';
    }
  | {
      kind: 'InsightActorsQuery';
      source: RetentionQuery;
      /** The cohort's index (its row). */
      interval: number;
    }
  | {
      kind: 'InsightActorsQuery';
      source: LifecycleQuery;
      /** The bucket's `days` entry. */
      day: string;
      status: 'new' | 'returning' | 'resurrecting' | 'dormant';
    }
  | {
      kind: 'StickinessActorsQuery';
      source: StickinessQuery;
      /** How many intervals the persons were active in. */
      day: number;
      series: number;
      compare?: 'current' | 'previous';
    }
  | {
      kind: 'FunnelsActorsQuery';
      source: FunnelsQuery;
      /** 1-based: the persons who reached the step; negative: those who dropped off before it. */
      funnelStep: number;
      funnelStepBreakdown?: string[];
    };

/** A person as an actors row shows them: `id` is the uuid. */
export interface PersonActor {
  id: string;
  distinct_ids: string[];
  properties?: Record<string, unknown>;
  is_identified?: boolean;
  created_at?: string;
}

export interface MatchedRecording {
  session_id: string;
  events: Array<{ timestamp: string; uuid: string; window_id: string }>;
}

export interface ActorsRow {
  actor: PersonActor;
  /** A trends value's events of the person; absent for a funnel step. */
  eventCount?: number;
  recordings: MatchedRecording[];
  /** A retention cohort's: whether the person counts in each interval. */
  intervals?: boolean[];
}

interface ActorsResponse {
  results: unknown[][];
  columns: string[];
  hasMore: boolean;
}

export const ACTORS_PAGE = 100;

/** What a page of the source's actors is asked with: the columns after the actor, and the insight's own order. */
function columnsOf(source: ActorsSource): { select: string[]; orderBy?: string[] } {
  if (source.kind === 'FunnelsActorsQuery') return { select: ['actor', 'matched_recordings'] };
  if (source.kind === 'StickinessActorsQuery' || source.source.kind === 'LifecycleQuery') return { select: ['person'] };
  if (source.source.kind === 'TrendsQuery') return { select: ['actor', 'event_count', 'matched_recordings'] };
  const filter = source.source.retentionFilter;
  const period = (filter.period ?? 'Day').toLowerCase();
  const intervals = Array.from({ length: filter.totalIntervals || 7 }, (_, k) => `${period}_${k}`);
  return { select: ['person', ...intervals], orderBy: ['length(appearances) DESC', 'actor_id'] };
}

export function useInsightActors(environmentId: number, source: ActorsSource) {
  const trends = source.kind === 'InsightActorsQuery' && source.source.kind === 'TrendsQuery';
  const columns = columnsOf(source);
  return useInfiniteQuery({
    queryKey: ['insights', environmentId, 'actors', source],
    initialPageParam: 0,
    queryFn: async ({ pageParam, signal }) => {
      const query = {
        kind: 'ActorsQuery',
        source: { ...source, includeRecordings: true },
        ...columns,
        limit: ACTORS_PAGE,
        offset: pageParam,
      };
      const answer = await api<ActorsResponse>(`/api/environments/${environmentId}/query/`, { method: 'POST', body: { query }, signal });
      const at = (name: string) => answer.columns.indexOf(name);
      const intervals = answer.columns.filter((column) => /^(hour|day|week|month)_\d+$/.test(column));
      const rows = answer.results.map((row): ActorsRow => ({
        // A retention names the person `person`, as PostHog's retention modal asks.
        actor: row[Math.max(at('actor'), at('person'))] as PersonActor,
        eventCount: trends ? (row[at('event_count')] as number) : undefined,
        recordings: (row[at('matched_recordings')] as MatchedRecording[] | undefined) ?? [],
        ...(intervals.length ? { intervals: intervals.map((column) => row[at(column)] === true) } : {}),
      }));
      return { rows, hasMore: answer.hasMore, offset: pageParam };
    },
    getNextPageParam: (last) => (last.hasMore ? last.offset + ACTORS_PAGE : undefined),
  });
}
