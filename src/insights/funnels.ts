/**
 * The funnel insight (PostHog's FunnelsQuery, "steps" shown in order), as a pure core: reading
 * the query and shaping what ClickHouse counted (funnels-store.ts) into PostHog's result.
 *
 * A person converts step by step: each step's event at or after the previous step's (strictly
 * after when the two steps are the same event), all within the conversion window from the first
 * step. Of a person's attempts, the one that gets furthest counts, and its conversion times are
 * those of the attempt that got there first, as PostHog's funnel UDF stops at it. Times are
 * seconds with their milliseconds, as the UDF's float timestamps give them; a step's average and
 * median leave out conversions of no time, as PostHog's do.
 */
import { readPropertyFilters, type PropertyFilterInput } from './properties.js';
import { TrendsQueryError } from './query-error.js';
import { readBreakdownLimit, readDateRange, readEventBreakdown, readInterval, readObjectField } from './query-fields.js';
import type { Interval } from './trends-window.js';
import { isJsonObject } from '../lib/json-object.js';

export const WINDOW_UNITS = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800, month: 2_592_000 } as const;
export type WindowUnit = keyof typeof WINDOW_UNITS;
/** PostHog's limit: 2 to 30 steps (the UI's). */
export const MAX_STEPS = 30;

export interface FunnelStep {
  /** null: any event. */
  event: string | null;
  name: string;
  customName: string | null;
  properties: PropertyFilterInput[];
}

export interface FunnelsQuery {
  steps: FunnelStep[];
  dateFrom: string;
  dateTo: string | null;
  properties: PropertyFilterInput[];
  /** Conversion window, in seconds. */
  windowSeconds: number;
  breakdown: string | null;
  /** How many breakdown values are shown, the most entered (the rest are left out). */
  breakdownLimit: number;
  /** `funnelsFilter.funnelVizType`: the steps, the time to convert between two of them, or the conversion over time. */
  vizType: 'steps' | 'time_to_convert' | 'trends';
  timeToConvert: TimeToConvertParams | null;
  trends: FunnelTrendsParams | null;
}

/**
 * The trends view (PostHog's FunnelTrends): per `interval` bucket of the first step, the persons
 * who reached step `fromStep` and of them those who reached `toStep` (0-based).
 */
export interface FunnelTrendsParams {
  interval: Interval;
  fromStep: number;
  toStep: number;
}

/** The steps a time to convert spans (0-based) and its bin count (null: automatic). */
export interface TimeToConvertParams {
  fromStep: number;
  toStep: number;
  binCount: number | null;
}

/** PostHog's FunnelTimeToConvertResults: `[bin start in seconds, persons]` per bin; times in seconds, unrounded. */
export interface TimeToConvert {
  bins: Array<[number, number]>;
  average_conversion_time: number | null;
  median_conversion_time: number | null;
}

/** Reads a FunnelsQuery (or an InsightVizNode wrapping one); `attr` paths as PostHog names them. */
export function readFunnelsQuery(query: unknown, attrPrefix = 'query__'): FunnelsQuery {
  const wrapped = isJsonObject(query) && query.kind === 'InsightVizNode';
  const source = wrapped ? query.source : query;
  const attr = (name: string) => `${attrPrefix}${wrapped ? 'source__' : ''}${name}`;
  if (!isJsonObject(source) || source.kind !== 'FunnelsQuery') throw new TrendsQueryError('Expected a FunnelsQuery.', attr('kind'));
  if (!Array.isArray(source.series) || source.series.length < 2) {
    throw new TrendsQueryError('A funnel needs at least two steps.', attr('series'));
  }
  if (source.series.length > MAX_STEPS) throw new TrendsQueryError(`A funnel has at most ${MAX_STEPS} steps.`, attr('series'));
  const steps = source.series.map((raw, i): FunnelStep => {
    if (!isJsonObject(raw) || raw.kind !== 'EventsNode')
      throw new TrendsQueryError('Each step must be an EventsNode.', attr(`series__${i}__kind`));
    const event = raw.event === undefined || raw.event === null ? null : raw.event;
    if (event !== null && typeof event !== 'string') throw new TrendsQueryError('Not a valid string.', attr(`series__${i}__event`));
    return {
      event,
      name: typeof raw.name === 'string' ? raw.name : (event ?? 'All events'),
      customName: typeof raw.custom_name === 'string' ? raw.custom_name : null,
      properties: readPropertyFilters(raw.properties, attr(`series__${i}__properties`)),
    };
  });
  const { dateFrom, dateTo } = readDateRange(source, attr);
  const filter = readObjectField(source, 'funnelsFilter', attr);
  const interval = filter.funnelWindowInterval ?? 14;
  const unit = filter.funnelWindowIntervalUnit ?? 'day';
  if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1 || interval > 100_000) {
    throw new TrendsQueryError(
      'funnelWindowInterval must be a whole number from 1 to 100000.',
      attr('funnelsFilter__funnelWindowInterval'),
    );
  }
  if (typeof unit !== 'string' || !Object.hasOwn(WINDOW_UNITS, unit)) {
    throw new TrendsQueryError(`"${String(unit)}" is not a valid choice.`, attr('funnelsFilter__funnelWindowIntervalUnit'));
  }
  const { exclusions } = filter;
  if (exclusions !== undefined && exclusions !== null && !(Array.isArray(exclusions) && exclusions.length === 0)) {
    throw new TrendsQueryError('Funnel exclusion steps are not supported.', attr('funnelsFilter__exclusions'));
  }
  const order = filter.funnelOrderType ?? 'ordered';
  if (order !== 'ordered') throw new TrendsQueryError('Only ordered funnels are supported.', attr('funnelsFilter__funnelOrderType'));
  const viz = filter.funnelVizType ?? 'steps';
  if (viz !== 'steps' && viz !== 'time_to_convert' && viz !== 'trends') {
    throw new TrendsQueryError(`"${String(viz)}" is not a valid choice.`, attr('funnelsFilter__funnelVizType'));
  }
  const breakdown = readEventBreakdown(source, attr);
  return {
    steps,
    dateFrom,
    dateTo,
    properties: readPropertyFilters(source.properties, attr('properties')),
    windowSeconds: interval * WINDOW_UNITS[unit as WindowUnit],
    breakdown,
    breakdownLimit: readBreakdownLimit(source, attr),
    vizType: viz,
    timeToConvert: viz === 'time_to_convert' ? readTimeToConvert(filter, steps.length, attr) : null,
    trends: viz === 'trends' ? readFunnelTrends(source, filter, steps.length, attr) : null,
  };
}

function optionalInteger(value: unknown, name: string, attr: (name: string) => string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw new TrendsQueryError('A valid integer is required.', attr(`funnelsFilter__${name}`));
  return value;
}

/**
 * PostHog's FunnelTimeToConvert parameters: from step `funnelFromStep` (0 when unset) to
 * `funnelToStep` (the last when unset or 0, as its `or` reads it), `binCount` clamped to 1..90.
 */
function readTimeToConvert(filter: Record<string, unknown>, steps: number, attr: (name: string) => string): TimeToConvertParams {
  const fromStep = optionalInteger(filter.funnelFromStep, 'funnelFromStep', attr) ?? 0;
  const toStep = optionalInteger(filter.funnelToStep, 'funnelToStep', attr) || steps - 1;
  if (!(toStep > 0 && toStep < steps)) {
    const choices = Array.from({ length: steps - 1 }, (_, i) => i + 1).join(', ');
    throw new TrendsQueryError(
      `Filter parameter funnel_to_step can only be one of ${choices} for time to convert!`,
      attr('funnelsFilter__funnelToStep'),
    );
  }
  if (fromStep < 0 || fromStep >= toStep) {
    throw new TrendsQueryError('funnelFromStep must be a step before funnelToStep.', attr('funnelsFilter__funnelFromStep'));
  }
  const binCount = optionalInteger(filter.binCount, 'binCount', attr);
  return { fromStep, toStep, binCount: binCount === null ? null : Math.min(90, Math.max(1, binCount)) };
}

/**
 * PostHog's FunnelTrends parameters: the query's `interval` (day when unset), the conversion from
 * step `funnelFromStep` (0 when unset) to `funnelToStep` (the last when unset), a later step.
 */
function readFunnelTrends(
  source: Record<string, unknown>,
  filter: Record<string, unknown>,
  steps: number,
  attr: (name: string) => string,
): FunnelTrendsParams {
  const interval = readInterval(source, attr);
  const fromStep = optionalInteger(filter.funnelFromStep, 'funnelFromStep', attr) ?? 0;
  const toStep = optionalInteger(filter.funnelToStep, 'funnelToStep', attr) ?? steps - 1;
  if (!(toStep > 0 && toStep < steps)) {
    const choices = Array.from({ length: steps - 1 }, (_, i) => i + 1).join(', ');
    throw new TrendsQueryError(`funnelToStep can only be one of ${choices} for trends.`, attr('funnelsFilter__funnelToStep'));
  }
  if (fromStep < 0 || fromStep >= toStep) {
    throw new TrendsQueryError('funnelFromStep must be a step before funnelToStep.', attr('funnelsFilter__funnelFromStep'));
  }
  return { interval, fromStep, toStep };
}

/** What ClickHouse counted for one breakdown value (or the whole funnel). */
export interface FunnelCounts {
  breakdownValue: string | null;
  /** Persons who reached each step. */
  counts: number[];
  /** Per step after the first: average and median seconds from the previous step (null: nobody converted). */
  averages: Array<number | null>;
  medians: Array<number | null>;
}

export interface FunnelStepResult {
  action_id: string | null;
  name: string;
  custom_name: string | null;
  order: number;
  count: number;
  type: 'events';
  average_conversion_time: number | null;
  median_conversion_time: number | null;
  breakdown?: string[];
  breakdown_value?: string[];
}

/** PostHog's result: the steps; with a breakdown, one list of steps per value, the most entered first. */
export function funnelResults(query: FunnelsQuery, counted: FunnelCounts[]): FunnelStepResult[] | FunnelStepResult[][] {
  const shape = (c: FunnelCounts): FunnelStepResult[] =>
    query.steps.map((step, i) => ({
      action_id: step.event,
      name: step.name,
      custom_name: step.customName,
      order: i,
      count: c.counts[i] ?? 0,
      type: 'events',
      average_conversion_time: i === 0 ? null : (c.averages[i] ?? null),
      median_conversion_time: i === 0 ? null : (c.medians[i] ?? null),
      ...(query.breakdown !== null ? { breakdown: [c.breakdownValue ?? ''], breakdown_value: [c.breakdownValue ?? ''] } : {}),
    }));
  if (query.breakdown === null) return shape(counted[0] ?? { breakdownValue: null, counts: [], averages: [], medians: [] });
  return [...counted]
    .sort((a, b) => (b.counts[0] ?? 0) - (a.counts[0] ?? 0) || String(a.breakdownValue).localeCompare(String(b.breakdownValue)))
    .slice(0, query.breakdownLimit)
    .map(shape);
}
