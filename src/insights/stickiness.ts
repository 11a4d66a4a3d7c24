/**
 * PostHog's stickiness insight (StickinessQuery), read and shaped. Pure: ClickHouse counts, per
 * series, how many persons were active in 1, 2, … N buckets of the window (stickiness-store.ts);
 * the window and its previous period are cut as trends cut them (trendsPeriods in service.ts).
 *
 * The series, interval, date range, filters and comparison are read by the trends reader, so they
 * take the same values and give the same errors; what is stickiness's own is read here.
 */
import { isJsonObject } from '../lib/json-object.js';
import { TrendsQueryError } from './query-error.js';
import { MATHS, readTrendsQuery, type Interval, type TrendsQuery, type TrendsSeries } from './trends.js';

/** `stickinessCriteria.operator` as the HAVING comparison it makes (PostHog's get_count_operator). */
const CRITERIA_OPERATORS = { gte: '>=', lte: '<=', exact: '=' } as const;
export type CriteriaOperator = keyof typeof CRITERIA_OPERATORS;

export interface StickinessQuery {
  /** The series (EventsNodes), interval, date range, properties and comparison, as trends read them. */
  trends: TrendsQuery;
  /** `computedAs: cumulative`: data[k] counts the persons active k + 1 or more buckets. */
  cumulative: boolean;
  /** A bucket counts for a person only when their events in it pass this; null: any event. */
  criteria: { operator: CriteriaOperator; value: number } | null;
}

/** The count of persons with exactly `intervals` active buckets, as ClickHouse gives it. */
export interface StickinessRow {
  intervals: number | string;
  persons: number | string;
}

export interface StickinessResult {
  count: number;
  data: number[];
  days: number[];
  labels: string[];
  label: string;
  action: { order: number; type: 'events'; name: string; id: string | null; custom_name: string | null };
  compare?: true;
  compare_label?: 'current' | 'previous';
}

export function criteriaOperator(operator: CriteriaOperator): string {
  return CRITERIA_OPERATORS[operator];
}

/** Reads a StickinessQuery (the body's `query`); attrs are PostHog's `query__…` paths. */
export function readStickinessQuery(source: Record<string, unknown>): StickinessQuery {
  const attr = (name: string) => `query__${name}`;
  if (!Array.isArray(source.series) || source.series.length === 0) {
    throw new TrendsQueryError('A stickiness query needs at least one series.', attr('series'));
  }
  const series = source.series.map((raw, i) => readSeriesMath(raw, (name) => attr(`series__${i}__${name}`)));
  readIntervalCount(source, attr);
  const trends = readTrendsQuery({
    kind: 'TrendsQuery',
    series,
    interval: source.interval,
    dateRange: source.dateRange,
    properties: source.properties,
    compareFilter: source.compareFilter,
  });
  const filter = source.stickinessFilter ?? null;
  if (filter !== null && !isJsonObject(filter)) throw new TrendsQueryError('Expected an object.', attr('stickinessFilter'));
  const computedAs = filter?.computedAs ?? 'non_cumulative';
  if (computedAs !== 'non_cumulative' && computedAs !== 'cumulative') {
    throw new TrendsQueryError(`"${String(computedAs)}" is not a valid choice.`, attr('stickinessFilter__computedAs'));
  }
  return { trends, cumulative: computedAs === 'cumulative', criteria: readCriteria(filter?.stickinessCriteria ?? null, attr) };
}

/**
 * A series as the trends reader takes it. PostHog counts persons whatever the math, except by
 * group (unique_group) or a HogQL expression, which Hoglet has no way to follow: those are
 * refused, and the others dropped so a property math does not ask for its property.
 */
function readSeriesMath(raw: unknown, attr: (name: string) => string): unknown {
  if (!isJsonObject(raw)) return raw;
  if (raw.kind === 'ActionsNode' || raw.kind === 'DataWarehouseNode') {
    const what = raw.kind === 'ActionsNode' ? 'Actions are' : 'Data warehouse series are';
    throw new TrendsQueryError(`${what} not supported: Hoglet has none; use an EventsNode.`, attr('kind'));
  }
  const math = raw.math ?? null;
  if (math === 'unique_group' || math === 'hogql') {
    throw new TrendsQueryError(`Stickiness counts persons: the "${math}" math is not supported.`, attr('math'));
  }
  if (math !== null && !(MATHS as readonly unknown[]).includes(math)) {
    throw new TrendsQueryError(`"${String(math)}" is not a valid choice.`, attr('math'));
  }
  const rest = { ...raw };
  delete rest.math;
  delete rest.math_property;
  delete rest.math_property_type;
  return rest;
}

/**
 * `intervalCount`: PostHog then counts buckets back from date_to by elapsed intervals (`age()`),
 * in groups of that many. By day a count of 1 is the same as calendar days; any other use is refused.
 */
function readIntervalCount(source: Record<string, unknown>, attr: (name: string) => string): void {
  const count = source.intervalCount ?? null;
  if (count === null) return;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
    throw new TrendsQueryError('A valid integer is required.', attr('intervalCount'));
  }
  if (count === 1 && (source.interval ?? 'day') === 'day') return;
  throw new TrendsQueryError(
    'intervalCount is not supported (except 1 by day): leave it out to count calendar intervals.',
    attr('intervalCount'),
  );
}

function readCriteria(raw: unknown, attr: (name: string) => string): StickinessQuery['criteria'] {
  if (raw === null) return null;
  if (!isJsonObject(raw)) throw new TrendsQueryError('Expected an object.', attr('stickinessFilter__stickinessCriteria'));
  const operator = raw.operator;
  if (typeof operator !== 'string' || !Object.hasOwn(CRITERIA_OPERATORS, operator)) {
    throw new TrendsQueryError(
      `"${String(operator)}" is not a valid choice: use gte, lte or exact.`,
      attr('stickinessFilter__stickinessCriteria__operator'),
    );
  }
  const value = raw.value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new TrendsQueryError('A valid integer is required.', attr('stickinessFilter__stickinessCriteria__value'));
  }
  return { operator: operator as CriteriaOperator, value };
}

/**
 * One series' entry over a window of `buckets` buckets: data[k - 1] the persons active in exactly
 * k of them (running sums from the end when cumulative), `count` the persons active at all.
 * PostHog labels and names it by its event, not its name; custom_name rides in `action`.
 */
export function stickinessResult(
  query: StickinessQuery,
  series: TrendsSeries,
  order: number,
  buckets: number,
  rows: StickinessRow[],
): StickinessResult {
  const exact = new Array<number>(buckets).fill(0);
  for (const row of rows) {
    const k = Number(row.intervals);
    if (k >= 1 && k <= buckets) exact[k - 1] = Number(row.persons);
  }
  const count = exact.reduce((a, b) => a + b, 0);
  const data = query.cumulative ? fromEnd(exact) : exact;
  const days = exact.map((_, i) => i + 1);
  const label = series.event ?? 'All events';
  return {
    count,
    data,
    days,
    labels: days.map((k) => intervalLabel(k, query.trends.interval) + (query.cumulative ? ' or more' : '')),
    label,
    action: { order, type: 'events', name: label, id: series.event, custom_name: series.customName },
  };
}

/** "1 day", "2 days", "3 weeks": PostHog's `f"{k} {interval}{'' if k == 1 else 's'}"`. */
export function intervalLabel(k: number, interval: Interval): string {
  return `${k} ${interval}${k === 1 ? '' : 's'}`;
}

/** data[i] = sum(data[i:]): the persons active i + 1 or more buckets. */
function fromEnd(values: number[]): number[] {
  const sums = [...values];
  for (let i = sums.length - 2; i >= 0; i--) sums[i]! += sums[i + 1]!;
  return sums;
}
