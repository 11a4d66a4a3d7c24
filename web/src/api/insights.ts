/**
 * Insights: PostHog's `/api/environments/:id/insights/` (saved insights, their `activity/`) and the
 * TrendsQuery / FunnelsQuery they hold, run on `POST /api/environments/:id/query/`.
 */
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Paginated } from './client';
import type { PropertyFilter } from './types';
import type { UserBasic } from './flags';
import type { FunnelTrendsResult } from '../../../src/insights/funnel-trends';
import { TOTAL_DISPLAYS } from '../../../src/posthog/trends-displays';

export interface DateRange {
  date_from: string | null;
  date_to: string | null;
}

export type TrendsMath =
  | 'total'
  | 'dau'
  | 'weekly_active'
  | 'monthly_active'
  | 'unique_session'
  | 'sum'
  | 'avg'
  | 'min'
  | 'max'
  | 'median'
  | 'p75'
  | 'p90'
  | 'p95'
  | 'p99';

export interface EventsNode {
  kind: 'EventsNode';
  /** null: all events. */
  event: string | null;
  name?: string;
  custom_name?: string;
  math?: TrendsMath;
  math_property?: string;
  properties?: PropertyFilter[];
}

export type Interval = 'hour' | 'day' | 'week' | 'month';
export type TrendsDisplay =
  'ActionsLineGraph' | 'ActionsLineGraphCumulative' | 'ActionsBar' | 'ActionsBarValue' | 'ActionsPie' | 'BoldNumber' | 'ActionsTable';

/** Whether a display answers one total a series over the range (no points over time), as the server reads it. */
export const isTotalDisplay = (display: string): boolean => TOTAL_DISPLAYS.includes(display);
export type FunnelVizType = 'steps' | 'time_to_convert' | 'trends';
export type WindowUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month';

export interface BreakdownFilter {
  breakdown?: string | null;
  breakdown_type?: 'event';
  /** How many values are shown, the most frequent first (the server's default, 25, when unset). */
  breakdown_limit?: number;
}

export interface TrendsQuery {
  kind: 'TrendsQuery';
  series: EventsNode[];
  interval?: Interval;
  dateRange?: DateRange;
  properties?: PropertyFilter[];
  breakdownFilter?: BreakdownFilter;
  trendsFilter?: { display?: TrendsDisplay };
  compareFilter?: { compare?: boolean };
}

export interface FunnelsQuery {
  kind: 'FunnelsQuery';
  series: EventsNode[];
  /** The trends view's buckets (day when unset). */
  interval?: Interval;
  dateRange?: DateRange;
  properties?: PropertyFilter[];
  breakdownFilter?: BreakdownFilter;
  funnelsFilter?: {
    funnelWindowInterval?: number;
    funnelWindowIntervalUnit?: WindowUnit;
    funnelVizType?: FunnelVizType;
    funnelOrderType?: 'ordered';
    /** The steps a time to convert spans, or a trends view's conversion is from and to (0-based). */
    funnelFromStep?: number;
    funnelToStep?: number;
  };
}

export type RetentionPeriod = 'Hour' | 'Day' | 'Week' | 'Month';
export type RetentionType = 'retention_first_time' | 'retention_recurring' | 'retention_first_ever_occurrence';

/** The event a retention cohort is made of, or returns with (PostHog's entity: `id` the event, null for any). */
export interface RetentionEntity {
  id: string | null;
  name?: string;
  type: 'events';
  properties?: PropertyFilter[];
}

export interface RetentionQuery {
  kind: 'RetentionQuery';
  retentionFilter: {
    period?: RetentionPeriod;
    totalIntervals?: number;
    retentionType?: RetentionType;
    targetEntity?: RetentionEntity;
    returningEntity?: RetentionEntity;
    cumulative?: boolean;
  };
  dateRange?: DateRange;
  properties?: PropertyFilter[];
}

/** PostHog's lifecycle: one series' persons per interval as new, returning, resurrecting and dormant. */
export interface LifecycleQuery {
  kind: 'LifecycleQuery';
  series: EventsNode[];
  interval?: Interval;
  dateRange?: DateRange;
  properties?: PropertyFilter[];
  breakdownFilter?: undefined;
}

/** PostHog's stickiness: per series, the persons active in exactly 1, 2, … intervals of the range. */
export interface StickinessQuery {
  kind: 'StickinessQuery';
  series: EventsNode[];
  interval?: Interval;
  dateRange?: DateRange;
  properties?: PropertyFilter[];
  stickinessFilter?: { computedAs?: 'non_cumulative' | 'cumulative' };
  breakdownFilter?: undefined;
}

export type InsightSource = TrendsQuery | FunnelsQuery | RetentionQuery | LifecycleQuery | StickinessQuery;

export interface InsightVizNode {
  kind: 'InsightVizNode';
  source: InsightSource;
}

/** A trends series (or a breakdown value of one) as the query answers it. */
export interface TrendsResult {
  action: { id: string | null; order: number; math?: string; name?: string; custom_name?: string | null };
  label: string;
  count: number;
  data: number[];
  labels: string[];
  days: string[];
  breakdown_value?: string;
  /** PostHog's value over the whole range, for the aggregated displays (when the server gives it). */
  aggregated_value?: number;
  /** With compareFilter.compare: which period the entry is. */
  compare?: boolean;
  compare_label?: 'current' | 'previous';
}

/** A lifecycle status over the range: persons per interval (dormant ones negative). */
export interface LifecycleResult {
  status: 'new' | 'returning' | 'resurrecting' | 'dormant';
  label: string;
  data: number[];
  days: string[];
  labels: string[];
  count: number;
}

/** A stickiness series: `data[k-1]` the persons active in k intervals, `labels` `1 day`, `2 days`, …. */
export interface StickinessResult {
  label: string;
  data: number[];
  labels: string[];
  count: number;
  action: { order: number; custom_name?: string | null };
  compare_label?: 'current' | 'previous';
}

/** A retention cohort: its period's start and the persons of it counted at each interval (the first: all of them). */
export interface RetentionResult {
  label: string;
  date: string;
  values: Array<{ count: number; label: string }>;
}

export interface FunnelStepResult {
  action_id: string | null;
  name: string;
  custom_name: string | null;
  order: number;
  count: number;
  average_conversion_time: number | null;
  median_conversion_time: number | null;
  breakdown_value?: string[];
}

/** Time to convert: seconds from the first to the last step, in bins of [seconds, persons]. */
export interface TimeToConvertResult {
  bins: Array<[number, number]>;
  average_conversion_time: number | null;
  median_conversion_time: number | null;
}

/** A funnel's trends view, per breakdown value (or one in all), as the server answers it. */
export type { FunnelTrendsResult };

export interface QueryResponse<R> {
  results: R;
  timezone?: string;
  resolved_date_range?: { date_from: string; date_to: string };
}

export type TrendsResponse = QueryResponse<TrendsResult[]>;
export type FunnelsResponse = QueryResponse<FunnelStepResult[] | FunnelStepResult[][]>;
export type TimeToConvertResponse = QueryResponse<TimeToConvertResult>;
export type FunnelTrendsResponse = QueryResponse<FunnelTrendsResult[]>;

export interface Insight {
  id: number;
  short_id: string;
  name: string | null;
  description: string;
  query: InsightVizNode | InsightSource | null;
  created_at: string;
  created_by: UserBasic | null;
  last_modified_at: string;
  last_modified_by: UserBasic | null;
  timezone?: string;
  /** The dashboards it is a tile on. */
  dashboards?: number[];
}

/** The source of an insight's query, whether saved wrapped in an InsightVizNode or bare. */
export function sourceOf(query: InsightVizNode | InsightSource | null | undefined): InsightSource | null {
  if (!query) return null;
  return query.kind === 'InsightVizNode' ? query.source : query;
}

/** The source with the range overridden: a `date_from` replaces the insight's range (to `date_to`, or now). */
export function withDateRange(source: InsightSource, dateRange: DateRange | null | undefined): InsightSource {
  if (!dateRange?.date_from) return source;
  return { ...source, dateRange: { date_from: dateRange.date_from, date_to: dateRange.date_to ?? null } };
}

const insightsPath = (environmentId: number) => `/api/environments/${environmentId}/insights/`;

export const INSIGHTS_PAGE = 50;

export function useInsights(environmentId: number, search: string, offset: number) {
  const params = new URLSearchParams({ limit: String(INSIGHTS_PAGE), offset: String(offset) });
  if (search) params.set('search', search);
  return useQuery({
    queryKey: ['insights', environmentId, 'list', params.toString()],
    queryFn: ({ signal }) => api<Paginated<Insight>>(`${insightsPath(environmentId)}?${params}`, { signal }),
    placeholderData: keepPreviousData,
  });
}

/** One insight by its short id (the address's), as PostHog's app asks for it. */
export function useInsightByShortId(environmentId: number, shortId: string | undefined) {
  return useQuery({
    queryKey: ['insights', environmentId, 'short', shortId],
    queryFn: async ({ signal }) => {
      const page = await api<Paginated<Insight>>(`${insightsPath(environmentId)}?short_id=${encodeURIComponent(shortId!)}`, { signal });
      return page.results.find((i) => i.short_id === shortId) ?? null;
    },
    enabled: shortId !== undefined,
  });
}

export type InsightWrite = Partial<Pick<Insight, 'name' | 'description' | 'query'>> & { deleted?: boolean };

export function useSaveInsight(environmentId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: InsightWrite }) =>
      api<Insight>(id === undefined ? insightsPath(environmentId) : `${insightsPath(environmentId)}${id}/`, {
        method: id === undefined ? 'POST' : 'PATCH',
        body,
      }),
    onSuccess: (insight) => {
      client.setQueryData(['insights', environmentId, 'short', insight.short_id], insight);
      void client.invalidateQueries({ queryKey: ['insights', environmentId, 'list'] });
      void client.invalidateQueries({ queryKey: ['insights', environmentId, 'activity', insight.id] });
    },
  });
}

export const insightActivityPath = (environmentId: number, id: number) => `${insightsPath(environmentId)}${id}/activity/`;

/** Runs a trends or funnels query (the source, not its InsightVizNode) in the environment. */
export function runInsightQuery<R>(environmentId: number, source: InsightSource, signal?: AbortSignal) {
  return api<QueryResponse<R>>(`/api/environments/${environmentId}/query/`, { method: 'POST', body: { query: source }, signal });
}

/** A query's answer, cached per environment and query (the query object is the key). */
export const insightQuery = <R>(environmentId: number, source: InsightSource) =>
  queryOptions({
    queryKey: ['insights', environmentId, 'query', source],
    queryFn: ({ signal }) => runInsightQuery<R>(environmentId, source, signal),
  });

export function useInsightQuery<R>(environmentId: number, source: InsightSource, enabled = true) {
  return useQuery({ ...insightQuery<R>(environmentId, source), placeholderData: keepPreviousData, enabled });
}

/** A table's dates: the same trends query asked as a line (a table shows its totals by date). */
export function tableDatesSource(source: TrendsQuery): TrendsQuery {
  return { ...source, trendsFilter: { ...source.trendsFilter, display: 'ActionsLineGraph' } };
}

/** A funnel asked for its steps (the steps view and the conversion table ask this). */
export function funnelStepsSource(source: FunnelsQuery): FunnelsQuery {
  return { ...source, funnelsFilter: { ...source.funnelsFilter, funnelVizType: 'steps' } };
}

/** The queries an insight's chart asks for (InsightViz, without the insight page's extras). */
export function chartSources(source: InsightSource): InsightSource[] {
  // A saved insight may hold a kind InsightViz does not draw (an EventsQuery, say): nothing to ask.
  const kind: string = source.kind;
  if (source.kind === 'RetentionQuery' || source.kind === 'LifecycleQuery' || source.kind === 'StickinessQuery') return [source];
  if (kind !== 'TrendsQuery' && kind !== 'FunnelsQuery') return [];
  if (source.kind === 'FunnelsQuery') {
    const viz = source.funnelsFilter?.funnelVizType;
    return [viz === 'time_to_convert' || viz === 'trends' ? source : funnelStepsSource(source)];
  }
  return source.trendsFilter?.display === 'ActionsTable' ? [source, tableDatesSource(source)] : [source];
}

export interface EventDefinition {
  id: string;
  name: string;
  volume_30_day: number | null;
  last_seen_at: string | null;
}

export interface PropertyDefinition {
  id: string;
  name: string;
  is_numerical: boolean;
  property_type: string | null;
}

/**
 * Event names for the pickers, the most recent first (what ingestion has seen). Definitions are
 * kept per environment: under `/api/projects/<id>/` they would be the project's first environment's.
 */
export function useEventDefinitions(environmentId: number, search: string) {
  const params = new URLSearchParams({ limit: '100' });
  if (search) params.set('search', search);
  return useQuery({
    queryKey: ['definitions', environmentId, 'events', search],
    queryFn: ({ signal }) => api<Paginated<EventDefinition>>(`/api/environments/${environmentId}/event_definitions/?${params}`, { signal }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

/** Whose properties: events', persons', or a group type's (by its index). */
export type PropertyOwner = 'event' | 'person' | { group: number };

/** Property names for the pickers, events' unless `owner` says whose; `numerical` for the property maths. */
export function usePropertyDefinitions(environmentId: number, search: string, numerical = false, owner: PropertyOwner = 'event') {
  const params = new URLSearchParams({ limit: '100', type: typeof owner === 'string' ? owner : 'group' });
  if (typeof owner !== 'string') params.set('group_type_index', String(owner.group));
  if (search) params.set('search', search);
  if (numerical) params.set('is_numerical', 'true');
  return useQuery({
    queryKey: ['definitions', environmentId, 'properties', owner, search, numerical],
    queryFn: ({ signal }) =>
      api<Paginated<PropertyDefinition>>(`/api/environments/${environmentId}/property_definitions/?${params}`, { signal }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}
