/**
 * What a delivery carries, whatever the target: the subscribed insight (or the dashboard's first
 * six insights, in tile order, as PostHog's `generate_assets`), each with its trends result, and
 * the links back to Hoglet.
 */
import { getDashboard, tilesOfDashboard } from '../../dashboards/store.js';
import { insightResult } from '../../insights/answers.js';
import type { InsightStores } from '../../insights/query-window.js';
import { getInsight, getInsightsByIds, type Insight } from '../../insights/store.js';
import type { TrendsResult } from '../../insights/trends-results.js';
import { subscriptionSummary } from '../core/index.js';
import type { Subscription } from '../store.js';

/** PostHog's DEFAULT_MAX_ASSET_COUNT. */
export const MAX_REPORT_INSIGHTS = 6;

export interface ReportItem {
  id: number;
  shortId: string;
  name: string;
  url: string;
  results: TrendsResult[];
}

export interface Report {
  kind: 'insight' | 'dashboard';
  resourceId: number;
  resourceName: string;
  resourceUrl: string;
  subscriptionUrl: string;
  summary: string;
  items: ReportItem[];
  /** How many insights the resource has (more than `items` when capped). */
  totalCount: number;
}

const insightName = (insight: Insight) => insight.name?.trim() || 'Untitled insight';

/** The report for a subscription at `now`, or null when its insight or dashboard is gone or deleted. */
export async function buildReport(stores: InsightStores, siteUrl: string, s: Subscription, now: Date): Promise<Report | null> {
  const { database } = stores;
  const project = `${siteUrl}/project/${s.teamId}`;
  const item = async (insight: Insight): Promise<ReportItem> => ({
    id: insight.id,
    shortId: insight.shortId,
    name: insightName(insight),
    url: `${project}/insights/${insight.shortId}`,
    results: (await insightResult(stores, insight, now)) ?? [],
  });
  const summary = subscriptionSummary({ frequency: s.frequency, interval: s.interval, byweekday: s.byweekday, bysetpos: s.bysetpos });
  if (s.insightId !== null) {
    const insight = await getInsight(database.db, s.teamId, s.insightId);
    if (!insight || insight.deleted) return null;
    return {
      kind: 'insight',
      resourceId: insight.id,
      resourceName: insightName(insight),
      resourceUrl: `${project}/insights/${insight.shortId}`,
      subscriptionUrl: `${project}/insights/${insight.shortId}/subscriptions/${s.id}`,
      summary,
      items: [await item(insight)],
      totalCount: 1,
    };
  }
  if (s.dashboardId === null) return null;
  const dashboard = await getDashboard(database.db, s.teamId, s.dashboardId);
  if (!dashboard || dashboard.deleted) return null;
  const tiles = await tilesOfDashboard(database.db, dashboard.id);
  const byId = await getInsightsByIds(
    database.db,
    tiles.map((t) => t.insightId),
  );
  const insights = tiles.map((t) => byId.get(t.insightId)).filter((i): i is Insight => !!i && !i.deleted);
  return {
    kind: 'dashboard',
    resourceId: dashboard.id,
    resourceName: dashboard.name?.trim() || 'Untitled dashboard',
    resourceUrl: `${project}/dashboard/${dashboard.id}`,
    subscriptionUrl: `${project}/dashboard/${dashboard.id}/subscriptions/${s.id}`,
    summary,
    items: await Promise.all(insights.slice(0, MAX_REPORT_INSIGHTS).map(item)),
    totalCount: insights.length,
  };
}

/** Columns of the results table: the last buckets only, so a long range stays readable. */
export const TABLE_BUCKETS = 8;

/** The results of one insight as rows: series label, total, and the last buckets' values. */
export function resultTable(results: readonly TrendsResult[]): { header: string[]; rows: string[][] } {
  const labels = results[0]?.labels ?? [];
  const from = Math.max(0, labels.length - TABLE_BUCKETS);
  return {
    header: ['Series', 'Total', ...labels.slice(from)],
    // A total-value display (number, table, pie…) has its one value in aggregated_value.
    rows: results.map((r) => [r.label, String(r.aggregated_value ?? r.count), ...r.data.slice(from).map(String)]),
  };
}

/** PostHog's "{Weekday Month DD, YYYY}" for the next delivery in invites. */
export function humanDate(iso: string | null): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  const part = (options: Intl.DateTimeFormatOptions) => date.toLocaleDateString('en-US', { ...options, timeZone: 'UTC' });
  return `${part({ weekday: 'long' })} ${part({ month: 'long' })} ${part({ day: '2-digit' })}, ${part({ year: 'numeric' })}`;
}
