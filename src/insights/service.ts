import type { Kysely } from 'kysely';
import { diffFields, recordActivity, type ActivityChange } from '../activity/store.js';
import type { AppContext } from '../context.js';
import type { Schema } from '../platform/db/schema.js';
import {
  dashboardLinks,
  dashboardLinksOfInsight,
  dashboardsOfInsight,
  dashboardTeamId,
  setInsightDashboards,
  type DashboardLink,
} from '../dashboards/store.js';
import { validationError } from '../posthog/errors.js';
import type { Team, User } from '../environments/models.js';
import { serializeUserBasic } from '../environments/serializers.js';
import { getTeam, getUser } from '../environments/tenancy-store.js';
import { insertInsight, updateInsight, type Insight, type InsightFields } from './store.js';
import { readTrendsQuery, TrendsQueryError, type TrendsQuery } from './trends.js';
import { checkTrendsAnswerSize, checkWindowWhole, type TrendsResult } from './trends-results.js';
import { computeTrends } from './trends-store.js';
import { firstEvent } from './first-event.js';
import { insightKind, readInsightQuery } from './insight-queries.js';
import { checkRetentionSize, readRetentionQuery, retentionResults, retentionWindow, type RetentionQuery } from './retention.js';
import { countRetention } from './retention-store.js';
import { trendsBounds, trendsWindow, windowBetween, type TrendsWindow, type TrendsZone } from './trends-window.js';
import { labelPeriod, previousPeriod } from './core/compare-period.js';
import { effectiveTimezone } from '../lib/zoned-time.js';
import { isJsonObject } from '../lib/json-object.js';
import { funnelResults, readFunnelsQuery, type FunnelsQuery } from './funnels.js';
import { countFunnel, funnelTrends, timeToConvert } from './funnels-store.js';
import { funnelTrendsResults } from './funnel-trends.js';
import { readNameAndDescription, serializerData, readBoolean, readStringTags } from '../posthog/fields.js';

type Db = Kysely<Schema>;

/** Reads the fields of an insight body (DRF style errors), merged onto `existing` for PATCH. */
function readInsightBody(raw: unknown, existing?: Insight): { fields: InsightFields; dashboards: number[] | undefined } {
  const body = serializerData(raw);
  const fields: InsightFields = existing
    ? {
        name: existing.name,
        description: existing.description,
        query: existing.query,
        tags: existing.tags,
        favorited: existing.favorited,
        deleted: existing.deleted,
      }
    : { name: null, description: '', query: null, tags: [], favorited: false, deleted: false };
  Object.assign(fields, readNameAndDescription(body));
  if ('query' in body) fields.query = body.query;
  if (!existing && fields.query === null) throw validationError('This field is required.', 'query', 'required');
  if ('query' in body || !existing) {
    try {
      readInsightQuery(fields.query);
    } catch (error) {
      if (error instanceof TrendsQueryError) throw validationError(error.message, error.attr);
      throw error;
    }
  }
  if ('tags' in body) fields.tags = readStringTags(body.tags);
  for (const flag of ['favorited', 'deleted'] as const) {
    if (flag in body) {
      fields[flag] = readBoolean(body[flag], flag);
    }
  }
  let dashboards: number[] | undefined;
  if ('dashboards' in body) {
    if (!Array.isArray(body.dashboards) || !body.dashboards.every((d) => Number.isSafeInteger(d))) {
      throw validationError('A valid integer is required.', 'dashboards');
    }
    dashboards = [...new Set(body.dashboards as number[])];
  }
  return { fields, dashboards };
}

async function checkDashboards(db: Db, team: Team, ids: number[] | undefined): Promise<void> {
  for (const id of ids ?? []) {
    const owner = await dashboardTeamId(db, id);
    if (owner === undefined) throw validationError(`Invalid pk "${id}" - object does not exist.`, 'dashboards', 'does_not_exist');
    if (owner !== team.id) throw validationError('Dashboard not found', 'dashboards');
  }
}

const LOGGED_FIELDS = (i: Insight) => ({
  name: i.name,
  description: i.description,
  query: i.query,
  tags: i.tags,
  favorited: i.favorited,
  deleted: i.deleted,
});

export async function createInsight(ctx: AppContext, team: Team, user: User, body: unknown): Promise<Insight> {
  const { fields, dashboards } = readInsightBody(body);
  return ctx.database.db.transaction().execute(async (trx) => {
    await checkDashboards(trx, team, dashboards);
    const insight = await insertInsight(trx, team.id, fields, user.id);
    if (dashboards) await setInsightDashboards(trx, insight.id, dashboards);
    await recordActivity(trx, {
      organizationId: team.organizationId,
      teamId: team.id,
      scope: 'Insight',
      itemId: insight.id,
      activity: 'created',
      actor: { userId: user.id },
      name: insight.name,
      shortId: insight.shortId,
    });
    return insight;
  });
}

/**
 * PostHog's change of an insight's `dashboards`: the dashboards before (tile order) and after (as
 * asked), each `{id, name}`; none when the set of dashboards is the same.
 */
function dashboardsChange(before: DashboardLink[], after: DashboardLink[]): ActivityChange[] {
  const ids = (links: DashboardLink[]) => links.map((d) => d.id).sort((a, b) => a - b);
  if (JSON.stringify(ids(before)) === JSON.stringify(ids(after))) return [];
  return [{ type: 'Insight', action: 'changed', field: 'dashboards', before, after }];
}

export async function editInsight(ctx: AppContext, team: Team, user: User, insight: Insight, body: unknown): Promise<Insight> {
  const { fields, dashboards } = readInsightBody(body, insight);
  return ctx.database.db.transaction().execute(async (trx) => {
    await checkDashboards(trx, team, dashboards);
    const dashboardsBefore = dashboards ? await dashboardLinksOfInsight(trx, insight.id) : [];
    const updated = await updateInsight(trx, insight, fields, user.id);
    if (dashboards) await setInsightDashboards(trx, insight.id, dashboards);
    const changes = diffFields('Insight', LOGGED_FIELDS(insight), LOGGED_FIELDS(updated));
    if (dashboards) changes.push(...dashboardsChange(dashboardsBefore, await dashboardLinks(trx, dashboards)));
    const activity = !insight.deleted && updated.deleted ? 'deleted' : 'updated';
    if (changes.length || dashboards) {
      await recordActivity(trx, {
        organizationId: team.organizationId,
        teamId: team.id,
        scope: 'Insight',
        itemId: insight.id,
        activity,
        actor: { userId: user.id },
        name: updated.name,
        shortId: updated.shortId,
        changes,
      });
    }
    return updated;
  });
}

/** Where an environment's trends are computed: its `timezone` and `week_start_day` settings. */
export function zoneOfTeam(team: Team | undefined): TrendsZone {
  return { timezone: team?.settings.timezone, weekStartDay: team?.settings.week_start_day };
}

/** Where insights are computed from: their settings in SQL, the events in ClickHouse. */
export type InsightStores = Pick<AppContext, 'database' | 'analytics'>;

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
 * `all` starts at the environment's first event (now before any), as PostHog's does: from the
 * epoch, a range by day would pass the bucket limit decades before any event, and a comparison's
 * previous period would end in 1970. Other dates are read as they are. Insights and web analytics read it.
 */
export async function resolvedFrom(analytics: InsightStores['analytics'], teamId: number, dateFrom: string, now: Date): Promise<string> {
  if (dateFrom.trim() !== 'all') return dateFrom;
  return ((await firstEvent(analytics, teamId)) ?? now).toISOString();
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

/** The result a saved insight shows: its trends or its funnel now, null when its query cannot run. */
async function insightAnswer(stores: InsightStores, insight: Insight, now: Date, zone: TrendsZone) {
  const kind = insightKind(insight.query);
  if (kind !== 'FunnelsQuery' && kind !== 'RetentionQuery') return insightResult(stores, insight, now, zone);
  let answer: () => Promise<unknown>;
  try {
    if (kind === 'RetentionQuery') {
      const query = readRetentionQuery(insight.query);
      answer = async () => (await retentionAnswer(stores.analytics, insight.teamId, query, now, zone)).results;
    } else {
      const query = readFunnelsQuery(insight.query);
      answer = async () => (await funnelsAnswer(stores.analytics, insight.teamId, query, now, zone)).results;
    }
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

/** What a page of serialized objects mentions, read once each: users, and environments' trends zones. */
export class PageLookups {
  private readonly cache = new Map<number, Promise<ReturnType<typeof serializeUserBasic> | null>>();
  private readonly zones = new Map<number, Promise<TrendsZone>>();
  constructor(private readonly db: Db) {}
  zone(teamId: number): Promise<TrendsZone> {
    let found = this.zones.get(teamId);
    if (!found) this.zones.set(teamId, (found = getTeam(this.db, teamId).then(zoneOfTeam)));
    return found;
  }
  get(id: number | null): Promise<ReturnType<typeof serializeUserBasic> | null> {
    if (id === null) return Promise.resolve(null);
    let found = this.cache.get(id);
    if (!found) this.cache.set(id, (found = getUser(this.db, id).then((u) => (u ? serializeUserBasic(u) : null))));
    return found;
  }
}

/** PostHog's InsightSerializer (the fields Hoglet has), with the computed result. */
/**
 * PostHog's InsightBasicSerializer (the list's `?basic=true`): the insight without its result, so a
 * picker lists a hundred insights without computing any.
 */
export async function serializeInsightBasic(ctx: AppContext, insight: Insight, users: PageLookups) {
  const [tiles, createdBy] = await Promise.all([dashboardsOfInsight(ctx.database.db, insight.id), users.get(insight.createdById)]);
  return {
    id: insight.id,
    short_id: insight.shortId,
    name: insight.name,
    derived_name: null,
    filters: {},
    query: insight.query,
    dashboards: tiles.map((t) => t.dashboardId),
    dashboard_tiles: tiles.map((t) => ({ id: t.tileId, dashboard_id: t.dashboardId, deleted: false })),
    description: insight.description,
    last_refresh: null,
    refreshing: false,
    saved: true,
    tags: insight.tags,
    updated_at: insight.lastModifiedAt,
    created_by: createdBy,
    created_at: insight.createdAt,
    last_modified_at: insight.lastModifiedAt,
    favorited: insight.favorited,
  };
}

export async function serializeInsight(ctx: AppContext, insight: Insight, users: PageLookups, now = new Date()) {
  const zone = await users.zone(insight.teamId);
  const [tiles, createdBy, modifiedBy, result] = await Promise.all([
    dashboardsOfInsight(ctx.database.db, insight.id),
    users.get(insight.createdById),
    users.get(insight.lastModifiedById),
    insightAnswer(ctx, insight, now, zone),
  ]);
  return {
    id: insight.id,
    short_id: insight.shortId,
    name: insight.name,
    derived_name: null,
    query: insight.query,
    filters: {},
    order: null,
    deleted: insight.deleted,
    dashboards: tiles.map((t) => t.dashboardId),
    dashboard_tiles: tiles.map((t) => ({ id: t.tileId, dashboard_id: t.dashboardId, deleted: false })),
    last_refresh: result ? now.toISOString() : null,
    result,
    created_at: insight.createdAt,
    created_by: createdBy,
    description: insight.description,
    updated_at: insight.lastModifiedAt,
    tags: insight.tags,
    favorited: insight.favorited,
    last_modified_at: insight.lastModifiedAt,
    last_modified_by: modifiedBy,
    is_sample: false,
    timezone: effectiveTimezone(zone.timezone),
    is_cached: false,
    query_status: null,
  };
}
