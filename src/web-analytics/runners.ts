/**
 * The web analytics query kinds of `POST …/query/`, answered in PostHog's response shapes
 * (WebOverviewQueryResponse, WebStatsTableQueryResponse, WebVitalsPathBreakdownQueryResponse).
 * The period is read in the environment's time zone, as trends read it.
 */
import type { AppContext } from '../context.js';
import type { Team } from '../environments/models.js';
import { resolvedFrom, zoneOfTeam } from '../insights/query-window.js';
import { trendsBounds } from '../insights/trends-window.js';
import { queryChannelRules } from '../posthog/channel-type.js';
import { overviewResults, previousPeriod, vitalsBreakdown, type PathValue, type Period } from './core/index.js';
import {
  BREAKDOWNS,
  readWebOverviewQuery,
  readWebStatsTableQuery,
  readWebVitalsPathBreakdownQuery,
  type Breakdown,
  type WebQueryBase,
} from './query.js';
import { SharedBatch } from './shared-batch.js';
import { webOverview, webStatsTables, webVitalsTables, type StatsRow, type VitalsTableKey } from './store.js';

type Runner = (ctx: AppContext, team: Team, query: Record<string, unknown>, now: Date) => Promise<Record<string, unknown>>;

/** The period a query covers, by whole local days; `all` from the day of the environment's first event. */
async function periodOf(ctx: AppContext, query: WebQueryBase, team: Team, now: Date): Promise<{ current: Period; timezone: string }> {
  const dateFrom = await resolvedFrom(ctx.analytics, team.id, query.dateFrom, now);
  const { from, to, timezone } = trendsBounds({ interval: 'day', dateFrom, dateTo: query.dateTo }, now, zoneOfTeam(team));
  return { current: { from, to }, timezone };
}

const range = (p: Period) => ({ dateFrom: p.from.toISOString(), dateTo: p.to.toISOString() });

/**
 * A shared batch's key: what its computation depends on. The analytics engine is part of it: tests
 * run several servers in one process.
 */
const batchKey = (ctx: AppContext, team: Team, ...inputs: unknown[]) => JSON.stringify([ctx.analytics.table('events'), team.id, ...inputs]);

const runOverview: Runner = async (ctx, team, source, now) => {
  const query = readWebOverviewQuery(source);
  const { current, timezone } = await periodOf(ctx, query, team, now);
  const previous = query.compare ? previousPeriod(current) : null;
  const counts = await webOverview(ctx.analytics, team.id, { current, previous }, query.properties);
  return { results: overviewResults(counts.current, counts.previous), samplingRate: { numerator: 1 }, ...range(current), timezone };
};

/**
 * The page's tables are computed together (store.ts webStatsTables) and handed out one a request:
 * at a million events each alone took about as long as all of them in one pass. A table is never
 * more than this old when handed out.
 */
const TABLES_MAX_AGE_MS = 5_000;
const ALL_BREAKDOWNS = Object.keys(BREAKDOWNS) as Breakdown[];
const tables = new SharedBatch<Breakdown, StatsRow[]>(TABLES_MAX_AGE_MS);

const runStatsTable: Runner = async (ctx, team, source, now) => {
  const query = readWebStatsTableQuery(source);
  const { current, timezone } = await periodOf(ctx, query, team, now);
  const previous = query.compare ? previousPeriod(current) : null;
  const channelRules = queryChannelRules(source, team.settings.modifiers);
  const key = batchKey(ctx, team, current, previous, query.properties, query.limit, channelRules);
  const rows =
    (await tables.take(key, query.breakdownBy, () =>
      webStatsTables(ctx.analytics, team.id, { current, previous }, query.properties, ALL_BREAKDOWNS, query.limit, channelRules),
    )) ?? [];
  return {
    // PostHog's rows: the value, then [current, previous] per column (previous null when not compared).
    results: rows.map((r) => [r.value, [r.visitors, previous ? r.previousVisitors : null], [r.views, previous ? r.previousViews : null]]),
    columns: ['context.columns.breakdown_value', 'context.columns.visitors', 'context.columns.views'],
    types: ['String', 'Tuple(UInt64, UInt64)', 'Tuple(UInt64, UInt64)'],
    hasMore: false,
    limit: query.limit,
    samplingRate: { numerator: 1 },
    ...range(current),
    timezone,
  };
};

/** The page's vitals tables, computed together and handed out one a request, as the tables are. */
const vitals = new SharedBatch<VitalsTableKey, PathValue[]>(TABLES_MAX_AGE_MS);

const runVitals: Runner = async (ctx, team, source, now) => {
  const query = readWebVitalsPathBreakdownQuery(source);
  const { current, timezone } = await periodOf(ctx, query, team, now);
  const key = batchKey(ctx, team, current, query.properties);
  const rows =
    (await vitals.take(key, `${query.metric}:${query.percentile}`, () =>
      webVitalsTables(ctx.analytics, team.id, current, query.properties),
    )) ?? [];
  return { results: [vitalsBreakdown(rows, query.thresholds)], ...range(current), timezone };
};

export const WEB_ANALYTICS_RUNNERS: Record<string, Runner> = {
  WebOverviewQuery: runOverview,
  WebStatsTableQuery: runStatsTable,
  WebVitalsPathBreakdownQuery: runVitals,
};
