/**
 * What each insight query answers at a time: trends, funnels, retention, lifecycle and stickiness
 * computed over their windows (query-window.ts), and the result a saved insight shows.
 */
import { getTeam } from '../environments/tenancy-store.js';
import type { Insight } from './store.js';
import { readTrendsQuery, TrendsQueryError, type TrendsQuery } from './trends.js';
import type { TrendsResult } from './trends-results.js';
import { computeTrends } from './trends-store.js';
import { insightKind } from './insight-queries.js';
import { readRetentionQuery, retentionResults, type RetentionQuery } from './retention.js';
import { countRetention } from './retention-store.js';
import { readLifecycleQuery } from './lifecycle.js';
import { lifecycleAnswer } from './lifecycle-store.js';
import { readStickinessQuery } from './stickiness.js';
import { stickinessAnswer } from './stickiness-store.js';
import { trendsBounds, trendsWindow, type TrendsWindow, type TrendsZone } from './trends-window.js';
import { labelPeriod } from './core/compare-period.js';
import { isJsonObject } from '../lib/json-object.js';
import { funnelResults, readFunnelsQuery, type FunnelsQuery } from './funnels.js';
import { countFunnel, funnelTrends, timeToConvert } from './funnels-store.js';
import { funnelTrendsResults } from './funnel-trends.js';
import { checkTrendsAnswerSize, checkWindowWhole } from './trends-results.js';
import { resolvedFrom, retentionPeriods, trendsPeriods, zoneOfTeam, type InsightStores } from './query-window.js';

/**
 * The insight's trends result now, in its environment's time zone (read when `zone` is not given),
 * or null when its query cannot run.
 */
export async function insightResult(
  stores: InsightStores,
  insight: Insight,
  now = new Date(),
  zone?: TrendsZone,
): Promise<TrendsResult[] | null> {
  if (isFunnelsQuery(insight.query)) return null; // subscription reports draw trends only
  let query;
  try {
    query = readTrendsQuery(insight.query);
  } catch {
    return null;
  }
  const zoneOf = zone ?? zoneOfTeam(await getTeam(stores.database.db, insight.teamId));
  try {
    return (await trendsAnswer(stores.analytics, insight.teamId, query, now, zoneOf)).results;
  } catch (error) {
    // An answer too large to compute now (its range grew, say) shows as one that cannot run.
    if (error instanceof TrendsQueryError) return null;
    throw error;
  }
}

/**
 * A trends query's results at `now` and the window they cover. With a comparison, PostHog's
 * order: every series of the current period, then every series of the previous one, each entry
 * marked with its period; the previous entries' `days` and `labels` name that period's own buckets.
 */
export async function trendsAnswer(
  analytics: InsightStores['analytics'],
  teamId: number,
  query: TrendsQuery,
  now: Date,
  zone: TrendsZone,
): Promise<{ results: TrendsResult[]; window: TrendsWindow }> {
  const periods = await trendsPeriods(analytics, teamId, query, now, zone);
  query = periods.query;
  const { window, previousWindow } = periods;
  if (previousWindow === null) return { results: await computeTrends(analytics, teamId, query, window), window };
  const [current, before] = await Promise.all([
    computeTrends(analytics, teamId, query, window),
    computeTrends(analytics, teamId, query, previousWindow),
  ]);
  return { results: [...labelPeriod(current, 'current'), ...labelPeriod(before, 'previous')], window };
}

/** Whether an insight's query is a funnel (bare or in an InsightVizNode); anything else is read as trends. */
export function isFunnelsQuery(query: unknown): boolean {
  const source = isJsonObject(query) && query.kind === 'InsightVizNode' ? query.source : query;
  return isJsonObject(source) && source.kind === 'FunnelsQuery';
}

/**
 * A funnel's results at `now` (the steps, the time to convert, or the conversion by interval) and
 * the range they cover: whole for the steps and the time to convert; for the trends view cut into its
 * interval, bounded as trends are.
 */
export async function funnelsAnswer(
  analytics: InsightStores['analytics'],
  teamId: number,
  query: FunnelsQuery,
  now: Date,
  zone: TrendsZone,
) {
  query = { ...query, dateFrom: await resolvedFrom(analytics, teamId, query.dateFrom, now) };
  if (query.trends !== null) {
    const window = trendsWindow({ interval: query.trends.interval, dateFrom: query.dateFrom, dateTo: query.dateTo }, now, zone);
    checkWindowWhole(window, query.trends.interval);
    // One line per breakdown value, as a trends series is.
    checkTrendsAnswerSize(
      { series: [query.steps], breakdown: query.breakdown, breakdownLimit: query.breakdownLimit, compare: null },
      window.buckets.length,
    );
    const cells = await funnelTrends(analytics, teamId, query, window, query.trends);
    return { results: funnelTrendsResults(query, window, cells), window };
  }
  // The steps and the time to convert read the range whole, unbucketed, from the start of date_from's day.
  const range = trendsBounds({ interval: 'day', dateFrom: query.dateFrom, dateTo: query.dateTo }, now, zone);
  const results =
    query.timeToConvert !== null
      ? await timeToConvert(analytics, teamId, query, range, query.timeToConvert)
      : funnelResults(query, await countFunnel(analytics, teamId, query, range));
  return { results, window: range };
}

/** A retention query's cohorts at `now` and the window they cover (its periods, in the environment's zone). */
export async function retentionAnswer(
  analytics: InsightStores['analytics'],
  teamId: number,
  query: RetentionQuery,
  now: Date,
  zone: TrendsZone,
) {
  const window = await retentionPeriods(analytics, teamId, query, now, zone);
  return { results: retentionResults(query, window, await countRetention(analytics, teamId, query, window)), window };
}

/** The result a saved insight shows: its trends or its funnel now, null when its query cannot run. */
export async function insightAnswer(stores: InsightStores, insight: Insight, now: Date, zone: TrendsZone) {
  const kind = insightKind(insight.query);
  if (kind === 'TrendsQuery' || !(typeof kind === 'string' && Object.hasOwn(ANSWERS, kind)))
    return insightResult(stores, insight, now, zone);
  let answer: () => Promise<unknown>;
  try {
    answer = ANSWERS[kind]!(stores, insight, now, zone);
  } catch {
    return null;
  }
  try {
    return await answer();
  } catch (error) {
    // As a trends insight's: a range grown past what an answer holds shows as one that cannot run.
    if (error instanceof TrendsQueryError) return null;
    throw error;
  }
}

/** Each kind's saved result: its query read (a bad one throws, and the insight shows none), then run on asking. */
const ANSWERS: Record<string, (stores: InsightStores, insight: Insight, now: Date, zone: TrendsZone) => () => Promise<unknown>> = {
  FunnelsQuery: (stores, insight, now, zone) => {
    const query = readFunnelsQuery(insight.query);
    return async () => (await funnelsAnswer(stores.analytics, insight.teamId, query, now, zone)).results;
  },
  RetentionQuery: (stores, insight, now, zone) => {
    const query = readRetentionQuery(insight.query);
    return async () => (await retentionAnswer(stores.analytics, insight.teamId, query, now, zone)).results;
  },
  LifecycleQuery: (stores, insight, now, zone) => {
    const query = readLifecycleQuery(insight.query);
    return async () => (await lifecycleAnswer(stores.analytics, insight.teamId, query, now, zone)).results;
  },
  StickinessQuery: (stores, insight, now, zone) => {
    const source = isJsonObject(insight.query) && insight.query.kind === 'InsightVizNode' ? insight.query.source : insight.query;
    const query = readStickinessQuery(isJsonObject(source) ? source : {});
    return async () => (await stickinessAnswer(stores.analytics, insight.teamId, query, now, zone)).results;
  },
};
