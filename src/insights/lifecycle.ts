/**
 * PostHog's lifecycle insight (LifecycleQuery): its query read and checked, and ClickHouse's counts
 * (lifecycle-store.ts) shaped as PostHog answers them. Pure. The range and its buckets are the
 * trends window's (trends-window.ts), so `days` and `labels` match a trends line of the same range.
 */
import { isJsonObject } from '../lib/json-object.js';
import { readPropertyFilters, type PropertyFilterInput } from './properties.js';
import { TrendsQueryError } from './query-error.js';
import { readDateRange, readInterval } from './query-fields.js';
import { bucketIndex, type Interval, type TrendsWindow } from './trends-window.js';

/** PostHog's statuses, in the order of its results. */
export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

export interface LifecycleQuery {
  /** null: all events. */
  event: string | null;
  customName: string | null;
  interval: Interval;
  dateFrom: string;
  dateTo: string | null;
  /** The query's and the series' filters: an event must match them all. */
  properties: PropertyFilterInput[];
}

/** One count ClickHouse computed: persons of a status in the bucket starting at `bucket` (Unix seconds). */
export interface LifecycleCell {
  bucket: number;
  status: string;
  total: number;
}

export interface LifecycleResult {
  action: Record<string, unknown>;
  data: number[];
  count: number;
  labels: string[];
  days: string[];
  label: string;
  status: LifecycleStatus;
}

/**
 * Reads a LifecycleQuery (or the InsightVizNode around it). `lifecycleFilter` only says what the
 * chart shows and `filterTestAccounts` is not applied by Hoglet's insights: both are accepted and
 * ignored.
 */
export function readLifecycleQuery(query: unknown): LifecycleQuery {
  const wrapped = isJsonObject(query) && query.kind === 'InsightVizNode';
  const source = wrapped ? query.source : query;
  const attr = (name: string) => `query__${wrapped ? 'source__' : ''}${name}`;
  if (!isJsonObject(source) || source.kind !== 'LifecycleQuery') throw new TrendsQueryError('Expected a LifecycleQuery.', attr('kind'));
  // PostHog ANDs the filters of every series (two events then match nothing) and labels by the
  // first; its interface sends exactly one, and one is all Hoglet reads.
  if (!Array.isArray(source.series) || source.series.length !== 1) {
    throw new TrendsQueryError('A lifecycle query needs exactly one series.', attr('series'));
  }
  const raw: unknown = source.series[0];
  if (isJsonObject(raw) && raw.kind === 'ActionsNode') {
    throw new TrendsQueryError('Actions are not supported: use an EventsNode series.', attr('series__0__kind'));
  }
  if (!isJsonObject(raw) || raw.kind !== 'EventsNode')
    throw new TrendsQueryError('The series must be an EventsNode.', attr('series__0__kind'));
  const event = raw.event ?? null;
  if (event !== null && typeof event !== 'string') throw new TrendsQueryError('Not a valid string.', attr('series__0__event'));
  if (source.lifecycleFilter != null && !isJsonObject(source.lifecycleFilter)) {
    throw new TrendsQueryError('Expected an object.', attr('lifecycleFilter'));
  }
  const { dateFrom, dateTo } = readDateRange(source, attr);
  return {
    event,
    customName: typeof raw.custom_name === 'string' ? raw.custom_name : null,
    interval: readInterval(source, attr),
    dateFrom,
    dateTo,
    properties: [
      ...readPropertyFilters(source.properties, attr('properties')),
      ...readPropertyFilters(raw.properties, attr('series__0__properties')),
    ],
  };
}

/**
 * The four entries PostHog answers, new, returning, resurrecting and dormant, each with a value
 * for every bucket of the window (0 where ClickHouse had no row); dormant counts are negative.
 * As PostHog's, the name is the event's (not the series' `name`) and the math is always `total`.
 */
export function lifecycleResults(query: LifecycleQuery, window: TrendsWindow, cells: LifecycleCell[]): LifecycleResult[] {
  const starts = new Map(window.buckets.map((b, i) => [b.getTime(), i]));
  const data = new Map(LIFECYCLE_STATUSES.map((s) => [s as string, new Array<number>(window.buckets.length).fill(0)]));
  for (const cell of cells) {
    const ms = Number(cell.bucket) * 1000;
    // The buckets ClickHouse cut are the window's; the search is a safety net (never clamped: the
    // bucket before the window only decides the first bucket's statuses).
    const i = starts.get(ms) ?? bucketIndex(window, ms);
    const row = data.get(cell.status);
    if (row && i >= 0) row[i] = cell.status === 'dormant' ? -Number(cell.total) : Number(cell.total);
  }
  const name = query.event ?? 'All events';
  const action = { id: query.event, type: 'events', order: 0, name, custom_name: query.customName, math: 'total' };
  return LIFECYCLE_STATUSES.map((status) => {
    const values = data.get(status)!;
    return {
      action,
      data: values,
      count: values.reduce((a, b) => a + b, 0),
      labels: window.labels,
      days: window.days,
      label: `${name} - ${status}`,
      status,
    };
  });
}
