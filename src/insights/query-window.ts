/**
 * Where and over which windows insight queries are computed: the environment's zone, `all` read
 * as the first event, and the windows of a trends query (with its previous period) or of a
 * retention's cohorts, each checked whole and of a size that is computed.
 */
import type { AppContext } from '../context.js';
import type { Team } from '../environments/models.js';
import { previousPeriod } from './core/compare-period.js';
import { firstEvent } from './first-event.js';
import { checkRetentionSize, retentionWindow, type RetentionQuery } from './retention.js';
import { checkTrendsAnswerSize, checkWindowWhole } from './trends-results.js';
import { trendsBounds, trendsWindow, windowBetween, type TrendsWindow, type TrendsZone } from './trends-window.js';
import type { TrendsQuery } from './trends.js';

/** Where an environment's trends are computed: its `timezone` and `week_start_day` settings. */
export function zoneOfTeam(team: Team | undefined): TrendsZone {
  return { timezone: team?.settings.timezone, weekStartDay: team?.settings.week_start_day };
}

/** Where insights are computed from: their settings in SQL, the events in ClickHouse. */
export type InsightStores = Pick<AppContext, 'database' | 'analytics'>;

/**
 * `all` starts at the environment's first event (now before any), as PostHog's does: from the
 * epoch, a range by day would pass the bucket limit decades before any event, and a comparison's
 * previous period would end in 1970. Other dates are read as they are. Insights and web analytics read it.
 */
export async function resolvedFrom(analytics: InsightStores['analytics'], teamId: number, dateFrom: string, now: Date): Promise<string> {
  if (dateFrom.trim() !== 'all') return dateFrom;
  return ((await firstEvent(analytics, teamId)) ?? now).toISOString();
}

/**
 * The windows a trends query is answered over at `now`: the range's, and the previous period's
 * with a comparison; each checked to be whole and the answer to be of a size that is computed.
 */
export async function trendsPeriods(
  analytics: InsightStores['analytics'],
  teamId: number,
  query: TrendsQuery,
  now: Date,
  zone: TrendsZone,
): Promise<{ query: TrendsQuery; window: TrendsWindow; previousWindow: TrendsWindow | null }> {
  query = { ...query, dateFrom: await resolvedFrom(analytics, teamId, query.dateFrom, now) };
  // PostHog reads a total-value display's range by day, whatever the interval.
  const interval = query.totalValue ? 'day' : query.interval;
  const window = trendsWindow(query.totalValue ? { ...query, interval: 'day' } : query, now, zone);
  checkWindowWhole(window, interval, query.totalValue);
  // The previous period is computed from the query's own interval, as QueryPreviousPeriodDateRange is;
  // it may be longer than the current one (all of last year beside this year so far).
  const previous =
    query.compare === null
      ? null
      : previousPeriod(query, query.totalValue ? trendsBounds(query, now, zone) : window, now, query.compare.compareTo);
  const previousWindow = previous === null ? null : windowBetween(previous.from, previous.to, interval, zone);
  if (previousWindow !== null) checkWindowWhole(previousWindow, interval, query.totalValue);
  // A total-value display answers one value a series and breakdown value, whatever its range.
  checkTrendsAnswerSize(query, query.totalValue ? 1 : Math.max(window.buckets.length, previousWindow?.buckets.length ?? 0));
  return { query, window, previousWindow };
}

/** A retention query's cohorts' periods at `now`, checked to be whole and of a size that is computed. */
export async function retentionPeriods(
  analytics: InsightStores['analytics'],
  teamId: number,
  query: RetentionQuery,
  now: Date,
  zone: TrendsZone,
) {
  const dateFrom = query.dateFrom === null ? null : await resolvedFrom(analytics, teamId, query.dateFrom, now);
  const window = retentionWindow({ ...query, dateFrom }, now, zone);
  checkWindowWhole(window, query.period);
  checkRetentionSize(query, window.buckets.length);
  return window;
}
