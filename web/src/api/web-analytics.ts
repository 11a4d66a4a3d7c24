/**
 * Web analytics through PostHog's query kinds on `POST /api/environments/:id/query/`:
 * WebOverviewQuery, WebStatsTableQuery and WebVitalsPathBreakdownQuery.
 */
import { queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import { api } from './client';
import type { PropertyFilter } from './types';
import { hasPreviousPeriod } from '../lib/date-range';
import { PREFETCHED_FRESH_MS } from '../query-client';

export interface WebRange {
  date_from: string;
  date_to: string | null;
}

export interface WebOverviewItem {
  key: string;
  kind: 'unit' | 'duration_s' | 'percentage';
  value: number | null;
  previous: number | null;
  changeFromPreviousPct: number | null;
  isIncreaseBad?: boolean;
}

/** A table row: the value, then [current, previous] visitors and views. */
export type WebStatsRow = [string | null, [number, number | null], [number, number | null]];

export interface VitalsPathValue {
  path: string;
  value: number;
}

export type VitalsBand = 'good' | 'needs_improvements' | 'poor';

const run = <T>(environmentId: number, query: Record<string, unknown>, signal?: AbortSignal) =>
  api<T>(`/api/environments/${environmentId}/query/`, { method: 'POST', body: { query }, signal });

export const webOverviewQuery = (environmentId: number, dateRange: WebRange, properties: PropertyFilter[]) =>
  queryOptions({
    staleTime: PREFETCHED_FRESH_MS,
    queryKey: ['web-analytics', environmentId, 'overview', dateRange, properties],
    queryFn: ({ signal }) =>
      run<{ results: WebOverviewItem[] }>(
        environmentId,
        { kind: 'WebOverviewQuery', dateRange, properties, compareFilter: { compare: hasPreviousPeriod(dateRange.date_from) } },
        signal,
      ),
  });

export const webStatsTableQuery = (environmentId: number, breakdownBy: string, dateRange: WebRange, properties: PropertyFilter[]) =>
  queryOptions({
    staleTime: PREFETCHED_FRESH_MS,
    queryKey: ['web-analytics', environmentId, 'table', breakdownBy, dateRange, properties],
    queryFn: ({ signal }) =>
      run<{ results: WebStatsRow[] }>(
        environmentId,
        { kind: 'WebStatsTableQuery', breakdownBy, dateRange, properties, limit: 10, compareFilter: { compare: false } },
        signal,
      ),
  });

export const webVitalsQuery = (
  environmentId: number,
  metric: string,
  percentile: string,
  dateRange: WebRange,
  properties: PropertyFilter[],
) =>
  queryOptions({
    staleTime: PREFETCHED_FRESH_MS,
    queryKey: ['web-analytics', environmentId, 'vitals', metric, percentile, dateRange, properties],
    queryFn: ({ signal }) =>
      run<{ results: Array<Record<VitalsBand, VitalsPathValue[]>> }>(
        environmentId,
        { kind: 'WebVitalsPathBreakdownQuery', metric, percentile, dateRange, properties },
        signal,
      ),
  });

export function useWebOverview(environmentId: number, dateRange: WebRange, properties: PropertyFilter[]) {
  return useQuery(webOverviewQuery(environmentId, dateRange, properties));
}

export function useWebStatsTable(environmentId: number, breakdownBy: string, dateRange: WebRange, properties: PropertyFilter[]) {
  return useQuery(webStatsTableQuery(environmentId, breakdownBy, dateRange, properties));
}

/** Several web vitals queries at once (a metric at a percentile each), answered in the order asked. */
export function useWebVitals(
  environmentId: number,
  asked: ReadonlyArray<{ metric: string; percentile: string }>,
  dateRange: WebRange,
  properties: PropertyFilter[],
) {
  return useQueries({
    queries: asked.map(({ metric, percentile }) => webVitalsQuery(environmentId, metric, percentile, dateRange, properties)),
  });
}
