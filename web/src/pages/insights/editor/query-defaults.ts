/** New insights' queries (PostHog's defaults), and what is sent: filters without a property left out. */
import type {
  EventsNode,
  FunnelsQuery,
  InsightSource,
  RetentionEntity,
  LifecycleQuery,
  RetentionQuery,
  StickinessQuery,
  TrendsMath,
  TrendsQuery,
} from '../../../api/insights';
import type { PropertyFilter } from '../../../api/types';

export const newTrends = (): TrendsQuery => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'total' }],
  interval: 'day',
  dateRange: { date_from: '-7d', date_to: null },
  trendsFilter: { display: 'ActionsLineGraph' },
});

export const newFunnel = (): FunnelsQuery => ({
  kind: 'FunnelsQuery',
  series: [
    { kind: 'EventsNode', event: '$pageview', name: '$pageview' },
    { kind: 'EventsNode', event: '$pageview', name: '$pageview' },
  ],
  dateRange: { date_from: '-7d', date_to: null },
  funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelVizType: 'steps', funnelOrderType: 'ordered' },
});

/** PostHog's new retention: pageviews back on each of the next 7 days, from the first one (no range: the last 8 days' cohorts). */
export const newRetention = (): RetentionQuery => ({
  kind: 'RetentionQuery',
  retentionFilter: {
    period: 'Day',
    totalIntervals: 8,
    retentionType: 'retention_first_time',
    targetEntity: { id: '$pageview', name: '$pageview', type: 'events' },
    returningEntity: { id: '$pageview', name: '$pageview', type: 'events' },
  },
});

/** PostHog's new lifecycle: pageviews by day over the last 7 days. */
export const newLifecycle = (): LifecycleQuery => ({
  kind: 'LifecycleQuery',
  series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }],
  interval: 'day',
  dateRange: { date_from: '-7d', date_to: null },
});

/** PostHog's new stickiness: the persons with a pageview on 1 to 8 of the last days. */
export const newStickiness = (): StickinessQuery => ({
  kind: 'StickinessQuery',
  series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'dau' }],
  interval: 'day',
  dateRange: { date_from: '-7d', date_to: null },
  stickinessFilter: { computedAs: 'non_cumulative' },
});

/** The maths of a series, as PostHog's picker names them. */
export const MATH_OPTIONS: { value: TrendsMath; label: string }[] = [
  { value: 'total', label: 'Total count' },
  { value: 'dau', label: 'Unique users' },
  { value: 'weekly_active', label: 'Weekly active users' },
  { value: 'monthly_active', label: 'Monthly active users' },
  { value: 'unique_session', label: 'Unique sessions' },
  { value: 'sum', label: 'Property sum' },
  { value: 'avg', label: 'Property average' },
  { value: 'min', label: 'Property minimum' },
  { value: 'max', label: 'Property maximum' },
  { value: 'median', label: 'Property median' },
  { value: 'p75', label: 'Property 75th percentile' },
  { value: 'p90', label: 'Property 90th percentile' },
  { value: 'p95', label: 'Property 95th percentile' },
  { value: 'p99', label: 'Property 99th percentile' },
];

export const PROPERTY_MATHS: ReadonlySet<TrendsMath> = new Set(['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99']);

/**
 * Why the query cannot run yet, or null when it can: a series with a property math but no property
 * (the server refuses it), as PostHog waits for one instead of sending the query.
 */
export function unfinishedQuery(source: InsightSource): string | null {
  if (source.kind !== 'TrendsQuery') return null;
  const i = source.series.findIndex((n) => n.math && PROPERTY_MATHS.has(n.math) && !n.math_property?.trim());
  return i === -1 ? null : `Choose the property to aggregate for series ${i + 1}.`;
}

const complete = (filters: PropertyFilter[] | undefined) => filters?.filter((f) => f.key.trim() !== '');

function cleanNode(node: EventsNode): EventsNode {
  const clean: EventsNode = { ...node, name: node.event ?? 'All events' };
  const properties = complete(node.properties);
  if (properties?.length) clean.properties = properties;
  else delete clean.properties;
  if (!clean.math || !PROPERTY_MATHS.has(clean.math)) delete clean.math_property;
  return clean;
}

function cleanEntity(entity: RetentionEntity | undefined): RetentionEntity | undefined {
  if (!entity) return entity;
  const clean: RetentionEntity = { ...entity, name: entity.id ?? 'All events' };
  const properties = complete(entity.properties);
  if (properties?.length) clean.properties = properties;
  else delete clean.properties;
  return clean;
}

function cleanRetention(source: RetentionQuery): RetentionQuery {
  const { targetEntity, returningEntity } = source.retentionFilter;
  const clean: RetentionQuery = {
    ...source,
    retentionFilter: { ...source.retentionFilter, targetEntity: cleanEntity(targetEntity), returningEntity: cleanEntity(returningEntity) },
  };
  const properties = complete(source.properties);
  if (properties?.length) clean.properties = properties;
  else delete clean.properties;
  return clean;
}

/** The query as run and saved: filters without a property and an empty breakdown dropped. */
export function cleanSource<S extends InsightSource>(source: S): S {
  if (source.kind === 'RetentionQuery') return cleanRetention(source) as S;
  const series = source as TrendsQuery | FunnelsQuery | LifecycleQuery | StickinessQuery;
  const clean = { ...series, series: series.series.map(cleanNode) };
  const properties = complete(series.properties);
  if (properties?.length) clean.properties = properties;
  else delete clean.properties;
  if (!series.breakdownFilter?.breakdown) delete clean.breakdownFilter;
  return clean as S;
}

/**
 * A new insight's query in the address (PostHog's `#q=`), so an unsaved insight survives a
 * reload and can be shared; the untouched default leaves the address bare.
 */
export function hashOfSource(source: InsightSource): string {
  if (JSON.stringify(source) === JSON.stringify(newTrends())) return '';
  return `#q=${encodeURIComponent(JSON.stringify(source))}`;
}

/** The query a `#q=` address carries, or null when it has none or one this editor cannot show. */
export function sourceOfHash(hash: string): InsightSource | null {
  const match = /^#q=(.+)$/.exec(hash);
  if (!match) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodeURIComponent(match[1]!));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const source = parsed as Partial<InsightSource>;
  if (source.kind === 'RetentionQuery') {
    const filter = (source as Partial<RetentionQuery>).retentionFilter;
    return typeof filter === 'object' && filter !== null ? (source as RetentionQuery) : null;
  }
  const withSeries = ['TrendsQuery', 'FunnelsQuery', 'LifecycleQuery', 'StickinessQuery'];
  if (!withSeries.includes(source.kind ?? '')) return null;
  const series: unknown = (source as Partial<TrendsQuery>).series;
  const readable =
    Array.isArray(series) && series.every((n: unknown) => typeof n === 'object' && n !== null && (n as EventsNode).kind === 'EventsNode');
  return readable ? (source as InsightSource) : null;
}
