/**
 * PostHog's ActorsQuery over an insight (its persons modal): which value of which insight, and
 * which page of its persons. Pure: reading and checking only; actors-service.ts answers it.
 */
import { isJsonObject } from '../lib/json-object.js';
import { TrendsQueryError } from './query-error.js';
import { readFunnelsQuery, type FunnelsQuery } from './funnels.js';
import { LIFECYCLE_STATUSES, readLifecycleQuery, type LifecycleQuery, type LifecycleStatus } from './lifecycle.js';
import { readRetentionQuery, type RetentionQuery } from './retention.js';
import { readStickinessQuery, type StickinessQuery } from './stickiness.js';
import { readTrendsQuery, type TrendsQuery } from './trends.js';

/** PostHog's page size for actors when none (or no positive one) is asked for, and the most a page holds: a larger limit is cut to it. */
export const DEFAULT_ACTORS_LIMIT = 100;
export const MAX_ACTORS_LIMIT = 10_000;

/**
 * The columns an actors page can hold: the person (`person` too, for a retention), how many of the
 * value's events are theirs, the distinct ids those events were sent with, the recorded sessions
 * they fall in; for a retention, whether they count in each interval (`day_0`, `week_3`, …).
 */
export const ACTOR_COLUMNS = ['actor', 'event_count', 'event_distinct_ids', 'matched_recordings'] as const;
export type ActorColumn = string;

/**
 * The orders PostHog's persons modal asks for: a trends value's persons most events first, a
 * retention cohort's those back most often first; an actors page is always in its insight's order.
 */
const KNOWN_ORDERS = [
  ['event_count DESC, actor_id DESC'],
  ['event_count DESC', 'actor_id DESC'],
  ['event_count DESC'],
  ['length(appearances) DESC', 'actor_id'],
  ['length(appearances) DESC, actor_id'],
  [],
];

/** One value of a trends answer, as the persons modal names it. */
export interface TrendsActorsSource {
  kind: 'trends';
  query: TrendsQuery;
  /** When the value's bucket starts (a `days` entry, or an ISO date-time); null for a total-value display (the whole range). */
  day: string | null;
  series: number;
  /** null without a breakdown. */
  breakdown: string | null;
  compare: 'current' | 'previous';
}

/** A funnel step's persons: those who reached step `step` (1-based), or with `step` negative those who reached the step before -step but not it. */
export interface FunnelsActorsSource {
  kind: 'funnels';
  query: FunnelsQuery;
  step: number;
  /** The breakdown value whose persons are asked for; null for all of them. */
  breakdown: string | null;
}

/** A retention cohort's persons: cohort `cohort` (PostHog's `interval`, the row's index). */
export interface RetentionActorsSource {
  kind: 'retention';
  query: RetentionQuery;
  cohort: number;
}

/** A lifecycle bar's persons: those of `status` in the bucket `day` names. */
export interface LifecycleActorsSource {
  kind: 'lifecycle';
  query: LifecycleQuery;
  day: string;
  status: LifecycleStatus;
}

/** A stickiness bar's persons: those of series `series` active in `intervals` intervals (or more, when cumulative). */
export interface StickinessActorsSource {
  kind: 'stickiness';
  query: StickinessQuery;
  series: number;
  intervals: number;
  compare: 'current' | 'previous';
}

export type ActorsSource =
  TrendsActorsSource | FunnelsActorsSource | RetentionActorsSource | LifecycleActorsSource | StickinessActorsSource;

export interface ActorsQuery {
  source: ActorsSource;
  select: ActorColumn[];
  limit: number;
  offset: number;
}

/** What the stores find of one actor: the person's uuid and, of the events that make them one, their count, distinct ids and (up to 100) sessions. */
export interface ActorRow {
  person: string;
  eventCount: number;
  distinctIds: string[];
  events: Array<{ timestamp: string; uuid: string; sessionId: string; windowId: string }>;
  /** A retention cohort's: the intervals the person counts in. */
  appearances?: number[];
}

const attrOf = (name: string) => `query__${name}`;

/** PostHog's paging: a missing, zero or negative limit is the default, a larger one the most a page holds. */
function readPage(raw: Record<string, unknown>): { limit: number; offset: number } {
  const whole = (value: unknown, name: string): number | null => {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new TrendsQueryError('A valid integer is required.', attrOf(name));
    return value;
  };
  const limit = whole(raw.limit, 'limit');
  const offset = whole(raw.offset, 'offset');
  return {
    limit: limit === null || limit <= 0 ? DEFAULT_ACTORS_LIMIT : Math.min(limit, MAX_ACTORS_LIMIT),
    offset: offset === null || offset < 0 ? 0 : offset,
  };
}

/** The columns a source's actors can hold. */
function columnsOf(source: ActorsSource): string[] {
  if (source.kind === 'trends') return [...ACTOR_COLUMNS];
  if (source.kind === 'funnels') return ['actor', 'matched_recordings'];
  if (source.kind === 'lifecycle' || source.kind === 'stickiness') return ['actor', 'person'];
  const period = source.query.period;
  return ['actor', 'person', ...Array.from({ length: source.query.totalIntervals }, (_, k) => `${period}_${k}`)];
}

function readSelect(raw: unknown, source: ActorsSource): ActorColumn[] {
  const supported = new Set(columnsOf(source));
  if (raw === undefined || raw === null) return ['actor'];
  if (!Array.isArray(raw) || raw.length === 0) throw new TrendsQueryError('Expected a non-empty list of columns.', attrOf('select'));
  // Each column once: a page's work is its rows times its columns.
  const seen = new Set<string>();
  const columns = raw.map((column, i) => {
    if (typeof column !== 'string' || !supported.has(column)) {
      const all = [...supported];
      const listed = all.length > 8 ? [...all.slice(0, 4), '…', all.at(-1)!] : all;
      throw new TrendsQueryError(
        `Column ${JSON.stringify(column)} is not supported in this insight's actors; supported: ${listed.join(', ')}.`,
        attrOf(`select__${i}`),
      );
    }
    if (seen.has(column)) throw new TrendsQueryError(`Column ${JSON.stringify(column)} is selected twice.`, attrOf(`select__${i}`));
    seen.add(column);
    return column;
  });
  // PostHog adds the events' distinct ids to a trends value's columns.
  return source.kind === 'trends' && !columns.includes('event_distinct_ids') ? [...columns, 'event_distinct_ids'] : columns;
}

function readOrderBy(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  if (KNOWN_ORDERS.some((order) => JSON.stringify(order) === JSON.stringify(raw))) return;
  throw new TrendsQueryError("Only an insight's own order of actors is supported (PostHog's persons modal's, or none).", attrOf('orderBy'));
}

/** A nested query's errors name their place under the actors query's source. */
function nested<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof TrendsQueryError)
      throw new TrendsQueryError(error.message, error.attr.replace(/^query__/, 'query__source__source__'));
    throw error;
  }
}

function readTrendsActorsSource(raw: Record<string, unknown>): TrendsActorsSource {
  const query = nested(() => readTrendsQuery(raw.source));
  const series = raw.series ?? 0;
  if (typeof series !== 'number' || !Number.isInteger(series) || series < 0 || series >= query.series.length) {
    throw new TrendsQueryError(`series must be the index of one of the query's ${query.series.length} series.`, attrOf('source__series'));
  }
  const day = raw.day ?? null;
  if (day !== null && typeof day !== 'string') throw new TrendsQueryError('Not a valid string.', attrOf('source__day'));
  if (day === null && !query.totalValue) {
    throw new TrendsQueryError('day is required: when the bucket of the value whose persons are asked for starts.', attrOf('source__day'));
  }
  const compare = raw.compare ?? 'current';
  if (compare !== 'current' && compare !== 'previous') {
    throw new TrendsQueryError(`"${String(compare)}" is not a valid choice.`, attrOf('source__compare'));
  }
  if (compare === 'previous' && query.compare === null) {
    throw new TrendsQueryError('compare is "previous" but the query has no comparison.', attrOf('source__compare'));
  }
  const breakdown = readBreakdownValue(raw.breakdown ?? null, query.breakdown !== null, 'source__breakdown');
  return { kind: 'trends', query, day: query.totalValue ? null : day, series, breakdown, compare };
}

function readFunnelsActorsSource(raw: Record<string, unknown>): FunnelsActorsSource {
  const query = nested(() => readFunnelsQuery(raw.source));
  if (query.vizType !== 'steps') {
    throw new TrendsQueryError(
      "Only the actors of a funnel's steps are supported.",
      attrOf('source__source__funnelsFilter__funnelVizType'),
    );
  }
  const step = raw.funnelStep ?? null;
  const n = query.steps.length;
  if (typeof step !== 'number' || !Number.isInteger(step) || step === 0 || step === -1 || Math.abs(step) > n) {
    throw new TrendsQueryError(
      `funnelStep must be a step's number, 1 to ${n} for the persons who reached it, or -2 to -${n} for those who dropped off before it.`,
      attrOf('source__funnelStep'),
    );
  }
  const breakdown = readBreakdownValue(raw.funnelStepBreakdown ?? null, query.breakdown !== null, 'source__funnelStepBreakdown');
  return { kind: 'funnels', query, step, breakdown };
}

function readRetentionActorsSource(raw: Record<string, unknown>): RetentionActorsSource {
  const query = nested(() => readRetentionQuery(raw.source));
  const cohort = raw.interval ?? null;
  if (typeof cohort !== 'number' || !Number.isInteger(cohort) || cohort < 0) {
    throw new TrendsQueryError('interval is required: the index of the cohort whose persons are asked for.', attrOf('source__interval'));
  }
  if ((raw.breakdown ?? null) !== null)
    throw new TrendsQueryError('breakdown is given but the query has no breakdown.', attrOf('source__breakdown'));
  return { kind: 'retention', query, cohort };
}

function readLifecycleActorsSource(raw: Record<string, unknown>): LifecycleActorsSource {
  const query = nested(() => readLifecycleQuery(raw.source));
  const day = raw.day ?? null;
  if (typeof day !== 'string')
    throw new TrendsQueryError('day is required: when the bucket of the bar whose persons are asked for starts.', attrOf('source__day'));
  const status = raw.status ?? null;
  if (!(LIFECYCLE_STATUSES as readonly unknown[]).includes(status)) {
    throw new TrendsQueryError(`status must be one of ${LIFECYCLE_STATUSES.join(', ')}.`, attrOf('source__status'));
  }
  return { kind: 'lifecycle', query, day, status: status as LifecycleStatus };
}

function readStickinessActorsSource(raw: Record<string, unknown>): StickinessActorsSource {
  const query = nested(() => readStickinessQuery(isJsonObject(raw.source) ? raw.source : {}));
  const series = raw.series ?? 0;
  if (typeof series !== 'number' || !Number.isInteger(series) || series < 0 || series >= query.trends.series.length) {
    throw new TrendsQueryError(
      `series must be the index of one of the query's ${query.trends.series.length} series.`,
      attrOf('source__series'),
    );
  }
  // PostHog's frontend sends the number of intervals as `day`, a number (older ones as its text).
  const day = typeof raw.day === 'string' && /^\d+$/.test(raw.day) ? Number(raw.day) : raw.day;
  if (typeof day !== 'number' || !Number.isInteger(day) || day < 1) {
    throw new TrendsQueryError('day is required: the number of intervals (1 or more) whose persons are asked for.', attrOf('source__day'));
  }
  if ((raw.operator ?? null) !== null)
    throw new TrendsQueryError('operator is not supported: the persons of exactly `day` intervals are listed.', attrOf('source__operator'));
  const compare = raw.compare ?? 'current';
  if (compare !== 'current' && compare !== 'previous')
    throw new TrendsQueryError(`"${String(compare)}" is not a valid choice.`, attrOf('source__compare'));
  if (compare === 'previous' && query.trends.compare === null) {
    throw new TrendsQueryError('compare is "previous" but the query has no comparison.', attrOf('source__compare'));
  }
  return { kind: 'stickiness', query, series, intervals: day, compare };
}

/** The breakdown value as the answer names it (a number is read as its text; a one-item list as its item). */
function readBreakdownValue(raw: unknown, brokenDown: boolean, name: string): string | null {
  if (raw === null) return null;
  if (!brokenDown) throw new TrendsQueryError(`${name.replace(/^source__/, '')} is given but the query has no breakdown.`, attrOf(name));
  // PostHog's frontend sends a single breakdown's value alone or as a one-item list.
  const value = Array.isArray(raw) && raw.length === 1 ? raw[0] : raw;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw new TrendsQueryError('Expected the breakdown value: a string, or a list of one.', attrOf(name));
  return value;
}

/**
 * Reads `{kind: 'ActorsQuery', source, select, orderBy, limit, offset}`, the source an
 * InsightActorsQuery over a TrendsQuery or a RetentionQuery, or a FunnelsActorsQuery over a
 * funnel's steps.
 */
export function readActorsQuery(raw: Record<string, unknown>): ActorsQuery {
  const source = raw.source ?? null;
  if (!isJsonObject(source)) {
    throw new TrendsQueryError('source is required: the insight value whose persons are asked for.', attrOf('source'));
  }
  if (typeof raw.search === 'string' && raw.search.trim() !== '') {
    throw new TrendsQueryError("Searching an insight's actors is not supported.", attrOf('search'));
  }
  readOrderBy(raw.orderBy);
  let read: ActorsSource;
  const insight = isJsonObject(source.source) ? source.source.kind : undefined;
  if (source.kind === 'InsightActorsQuery' && insight === 'RetentionQuery') {
    read = readRetentionActorsSource(source);
  } else if (source.kind === 'InsightActorsQuery' && insight === 'LifecycleQuery') {
    read = readLifecycleActorsSource(source);
  } else if ((source.kind === 'InsightActorsQuery' || source.kind === 'StickinessActorsQuery') && insight === 'StickinessQuery') {
    read = readStickinessActorsSource(source);
  } else if (source.kind === 'InsightActorsQuery') {
    if (insight !== 'TrendsQuery') {
      throw new TrendsQueryError(
        "Only the actors of a TrendsQuery, RetentionQuery, LifecycleQuery or StickinessQuery are supported here; a funnel's are a FunnelsActorsQuery.",
        attrOf('source__source__kind'),
      );
    }
    read = readTrendsActorsSource(source);
  } else if (source.kind === 'FunnelsActorsQuery') {
    read = readFunnelsActorsSource(source);
  } else {
    throw new TrendsQueryError(
      `Actors of ${JSON.stringify(source.kind ?? null)} are not supported; supported: InsightActorsQuery, FunnelsActorsQuery, StickinessActorsQuery.`,
      attrOf('source__kind'),
    );
  }
  return { source: read, select: readSelect(raw.select, read), ...readPage(raw) };
}
