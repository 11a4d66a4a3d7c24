/**
 * The retention insight (PostHog's RetentionQuery), as a pure core: reading the query, the window
 * of cohorts it covers, and shaping what ClickHouse counted (retention-store.ts) into PostHog's
 * result. A cohort is the persons who did the target event in a period (their first time ever, or
 * every time); its interval k the persons of it who did the returning event k periods later;
 * interval 0 is the cohort whole.
 */
import { isJsonObject } from '../lib/json-object.js';
import { readPropertyFilters, type PropertyFilterInput } from './properties.js';
import { TrendsQueryError } from './query-error.js';
import { readObjectField } from './query-fields.js';
import {
  bucketsBefore,
  bucketStart,
  nextBucket,
  parseTrendsDate,
  windowBetween,
  type Interval,
  type TrendsWindow,
  type TrendsZone,
} from './trends-window.js';
import { effectiveTimezone, toWall } from '../lib/zoned-time.js';

/** PostHog's periods, as `retentionFilter.period` names them, and the buckets they are. */
const PERIODS: Record<string, Interval> = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' };
export const RETENTION_TYPES = ['retention_first_time', 'retention_recurring', 'retention_first_ever_occurrence'] as const;
export type RetentionType = (typeof RETENTION_TYPES)[number];

/** PostHog's DEFAULT_TOTAL_INTERVALS, used when `totalIntervals` is unset or 0; and the most Hoglet answers. */
export const DEFAULT_TOTAL_INTERVALS = 7;
export const MAX_TOTAL_INTERVALS = 1000;
/** The most cells a retention answer holds (cohorts × intervals), as trends bound theirs. */
export const MAX_RETENTION_CELLS = 1_000_000;

export interface RetentionEntity {
  /** null: any event. */
  event: string | null;
  properties: PropertyFilterInput[];
}

export interface RetentionQuery {
  period: Interval;
  /** PostHog's Hour / Day / Week / Month, for the labels. */
  periodName: string;
  totalIntervals: number;
  retentionType: RetentionType;
  target: RetentionEntity;
  returning: RetentionEntity;
  /** When set, the first cohort is the period holding it; else `totalIntervals` periods before the end. */
  dateFrom: string | null;
  dateTo: string | null;
  properties: PropertyFilterInput[];
  /** A person counts in every interval up to the last they returned in ("on or after"). */
  cumulative: boolean;
}

const PAGEVIEW = { id: '$pageview', type: 'events' };

function readEntity(raw: unknown, attr: string): RetentionEntity {
  const entity = raw ?? PAGEVIEW;
  if (!isJsonObject(entity)) throw new TrendsQueryError('Expected an object.', attr);
  const type = entity.type ?? 'events';
  if (type !== 'events') throw new TrendsQueryError(`Entities of type "${String(type)}" are not supported; use an event.`, `${attr}__type`);
  const event = entity.id ?? null;
  if (event !== null && typeof event !== 'string') throw new TrendsQueryError('Not a valid string.', `${attr}__id`);
  return { event, properties: readPropertyFilters(entity.properties, `${attr}__properties`) };
}

function readDate(raw: unknown, attr: string): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string' || parseTrendsDate(raw, new Date()) === null)
    throw new TrendsQueryError(`Unreadable date "${String(raw)}".`, attr);
  return raw;
}

/** Reads a RetentionQuery (or the InsightVizNode around it); `attr` paths as PostHog names them. */
export function readRetentionQuery(query: unknown): RetentionQuery {
  const wrapped = isJsonObject(query) && query.kind === 'InsightVizNode';
  const source = wrapped ? query.source : query;
  const attr = (name: string) => `query__${wrapped ? 'source__' : ''}${name}`;
  if (!isJsonObject(source) || source.kind !== 'RetentionQuery') throw new TrendsQueryError('Expected a RetentionQuery.', attr('kind'));
  if (!isJsonObject(source.retentionFilter)) throw new TrendsQueryError('This field is required.', attr('retentionFilter'));
  const filter = source.retentionFilter;
  const period = filter.period ?? 'Day';
  if (typeof period !== 'string' || !Object.hasOwn(PERIODS, period)) {
    throw new TrendsQueryError(`"${String(period)}" is not a valid choice: Hour, Day, Week or Month.`, attr('retentionFilter__period'));
  }
  const total = filter.totalIntervals ?? 0;
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0 || total > MAX_TOTAL_INTERVALS) {
    throw new TrendsQueryError(
      `totalIntervals must be a whole number from 1 to ${MAX_TOTAL_INTERVALS}.`,
      attr('retentionFilter__totalIntervals'),
    );
  }
  // PostHog runs a missing type as recurring; its app sends first time by default.
  const type = filter.retentionType ?? 'retention_recurring';
  if (!(RETENTION_TYPES as readonly unknown[]).includes(type)) {
    throw new TrendsQueryError(`"${String(type)}" is not a valid choice.`, attr('retentionFilter__retentionType'));
  }
  if (readObjectField(source, 'breakdownFilter', attr).breakdown != null) {
    throw new TrendsQueryError('Breakdowns of retention are not supported.', attr('breakdownFilter__breakdown'));
  }
  const min = filter.minimumOccurrences ?? 1;
  if (min !== 1) throw new TrendsQueryError('Only minimumOccurrences 1 is supported.', attr('retentionFilter__minimumOccurrences'));
  const range = readObjectField(source, 'dateRange', attr);
  return {
    period: PERIODS[period]!,
    periodName: period,
    totalIntervals: total || DEFAULT_TOTAL_INTERVALS,
    retentionType: type as RetentionType,
    target: readEntity(filter.targetEntity, attr('retentionFilter__targetEntity')),
    returning: readEntity(filter.returningEntity, attr('retentionFilter__returningEntity')),
    dateFrom: readDate(range.date_from, attr('dateRange__date_from')),
    dateTo: readDate(range.date_to, attr('dateRange__date_to')),
    properties: readPropertyFilters(source.properties, attr('properties')),
    cumulative: filter.cumulative === true,
  };
}

/**
 * The cohorts' periods at `now`, in the environment's zone, as PostHog's QueryDateRangeWithIntervals
 * cuts them: up to the end of the period after the one holding date_to (now when unset), from the
 * period holding date_from or else `totalIntervals` periods before that end.
 */
export function retentionWindow(query: RetentionQuery, now: Date, zone: TrendsZone): TrendsWindow {
  const timezone = effectiveTimezone(zone.timezone);
  const weekStart = zone.weekStartDay === 1 ? 1 : 0;
  const to = query.dateTo === null ? now : (parseTrendsDate(query.dateTo, now, timezone) ?? now);
  const end = new Date(nextBucket(bucketStart(to, query.period, timezone, weekStart).getTime(), query.period, timezone));
  const from =
    query.dateFrom === null
      ? bucketsBefore(end, query.totalIntervals, query.period, timezone)
      : (parseTrendsDate(query.dateFrom, now, timezone) ?? end);
  return windowBetween(from, end, query.period, zone);
}

/** Refuses an answer of more than MAX_RETENTION_CELLS cells. */
export function checkRetentionSize(query: RetentionQuery, cohorts: number): void {
  const cells = cohorts * query.totalIntervals;
  if (cells <= MAX_RETENTION_CELLS) return;
  throw new TrendsQueryError(
    `This retention would answer ${cells.toLocaleString('en-US')} values (${cohorts} cohorts × ${query.totalIntervals} intervals), more than ${MAX_RETENTION_CELLS.toLocaleString('en-US')}: use a shorter date range or fewer intervals.`,
    'query__dateRange',
  );
}

/** The interval a retention actors column names (`day_3`: 3), null for any other column. */
export function readRetentionInterval(column: string): number | null {
  const match = /^(?:hour|day|week|month)_(\d+)$/.exec(column);
  return match ? Number(match[1]) : null;
}

/** One count ClickHouse made: cohort `cohort` (its period's index), `interval` periods on. */
export interface RetentionCell {
  cohort: number;
  interval: number;
  persons: number;
}

/** An instant as the environment's wall clock with its offset, as PostHog prints a zoned datetime (`Z` in UTC). */
export function zonedIso(instant: Date, timezone: string): string {
  const wall = toWall(instant.getTime(), timezone);
  const offset = Math.round((wall - instant.getTime()) / 60_000);
  const text = new Date(wall).toISOString().slice(0, 19);
  if (offset === 0) return `${text}Z`;
  const abs = Math.abs(offset);
  return `${text}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** PostHog's retention result: a row per cohort, each with `totalIntervals` values, 0 where nobody was counted. */
export function retentionResults(query: RetentionQuery, window: TrendsWindow, cells: RetentionCell[]) {
  const counts = new Map(cells.map((c) => [`${c.cohort}:${c.interval}`, c.persons]));
  return window.buckets.map((start, cohort) => ({
    values: Array.from({ length: query.totalIntervals }, (_, k) => ({
      count: counts.get(`${cohort}:${k}`) ?? 0,
      label: `${query.periodName} ${k}`,
    })),
    label: `${query.periodName} ${cohort}`,
    date: zonedIso(start, window.timezone),
  }));
}
