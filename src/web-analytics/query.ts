/**
 * Reading PostHog's web analytics query kinds (posthog/schema.py): WebOverviewQuery,
 * WebStatsTableQuery and WebVitalsPathBreakdownQuery, with `attr` paths as PostHog names them.
 */
import { isJsonObject } from '../lib/json-object.js';
import { readPropertyFilters, type PropertyFilterInput } from '../insights/properties.js';
import { TrendsQueryError } from '../insights/query-error.js';
import { readDateRange } from '../insights/query-fields.js';
import { VITALS_METRICS, VITALS_PERCENTILES, VITALS_THRESHOLDS, type VitalsMetric, type VitalsPercentile } from './core/index.js';

/** What a breakdown groups by: a column of the pageview (`event`) or of its session (`session`). */
export const BREAKDOWNS = {
  Page: { source: 'event', key: '$pathname' },
  InitialPage: { source: 'session', key: 'entry_pathname' },
  InitialReferringDomain: { source: 'session', key: 'entry_referring_domain' },
  InitialChannelType: { source: 'session', key: 'channel_type' },
  Country: { source: 'event', key: '$geoip_country_code' },
  Browser: { source: 'event', key: '$browser' },
  DeviceType: { source: 'event', key: '$device_type' },
  OS: { source: 'event', key: '$os' },
} as const;
export type Breakdown = keyof typeof BREAKDOWNS;

export interface WebQueryBase {
  dateFrom: string;
  dateTo: string | null;
  properties: PropertyFilterInput[];
  compare: boolean;
}

export interface WebStatsTableQuery extends WebQueryBase {
  breakdownBy: Breakdown;
  limit: number;
}

export interface WebVitalsPathBreakdownQuery extends WebQueryBase {
  metric: VitalsMetric;
  percentile: VitalsPercentile;
  thresholds: readonly [number, number];
}

const attr = (name: string) => `query__${name}`;
export const MAX_LIMIT = 1000;

function readBase(source: unknown, kind: string): WebQueryBase & { source: Record<string, unknown> } {
  if (!isJsonObject(source) || source.kind !== kind) throw new TrendsQueryError(`Expected a ${kind}.`, attr('kind'));
  const { dateFrom, dateTo } = readDateRange(source, attr);
  const compareFilter = isJsonObject(source.compareFilter) ? source.compareFilter : {};
  const compare = compareFilter.compare ?? true;
  if (typeof compare !== 'boolean') throw new TrendsQueryError('Must be a valid boolean.', attr('compareFilter__compare'));
  return { source, dateFrom, dateTo, compare, properties: readPropertyFilters(source.properties, attr('properties')) };
}

export function readWebOverviewQuery(query: unknown): WebQueryBase {
  const { source: _source, ...base } = readBase(query, 'WebOverviewQuery');
  return base;
}

export function readWebStatsTableQuery(query: unknown): WebStatsTableQuery {
  const { source, ...base } = readBase(query, 'WebStatsTableQuery');
  const breakdownBy = source.breakdownBy;
  if (typeof breakdownBy !== 'string' || !Object.hasOwn(BREAKDOWNS, breakdownBy)) {
    throw new TrendsQueryError(
      `"${String(breakdownBy)}" is not a supported breakdownBy; supported: ${Object.keys(BREAKDOWNS).join(', ')}.`,
      attr('breakdownBy'),
    );
  }
  const limit = source.limit ?? 100;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new TrendsQueryError(`limit must be a whole number from 1 to ${MAX_LIMIT}.`, attr('limit'));
  }
  return { ...base, breakdownBy: breakdownBy as Breakdown, limit };
}

export function readWebVitalsPathBreakdownQuery(query: unknown): WebVitalsPathBreakdownQuery {
  const { source, ...base } = readBase(query, 'WebVitalsPathBreakdownQuery');
  const metric = source.metric;
  if (typeof metric !== 'string' || !(VITALS_METRICS as readonly string[]).includes(metric)) {
    throw new TrendsQueryError(`"${String(metric)}" is not a valid choice.`, attr('metric'));
  }
  const percentile = source.percentile ?? 'p75';
  if (typeof percentile !== 'string' || !Object.hasOwn(VITALS_PERCENTILES, percentile)) {
    throw new TrendsQueryError(`"${String(percentile)}" is not a valid choice.`, attr('percentile'));
  }
  const thresholds = source.thresholds ?? VITALS_THRESHOLDS[metric as VitalsMetric];
  if (
    !Array.isArray(thresholds) ||
    thresholds.length !== 2 ||
    !thresholds.every((t) => typeof t === 'number' && Number.isFinite(t)) ||
    (thresholds[0] as number) > (thresholds[1] as number)
  ) {
    throw new TrendsQueryError('thresholds must be two ascending numbers.', attr('thresholds'));
  }
  return {
    ...base,
    metric: metric as VitalsMetric,
    percentile: percentile as VitalsPercentile,
    thresholds: [thresholds[0] as number, thresholds[1] as number],
  };
}
