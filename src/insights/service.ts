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
import { TrendsQueryError } from './trends.js';
import { readInsightQuery } from './insight-queries.js';
import { insightAnswer } from './answers.js';
import { zoneOfTeam } from './query-window.js';
import { type TrendsZone } from './trends-window.js';
import { effectiveTimezone } from '../lib/zoned-time.js';
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
    // Hoglet stores an insight only when it is saved (PostHog's app also kept unsaved drafts).
    saved: true,
    last_modified_at: insight.lastModifiedAt,
    last_modified_by: modifiedBy,
    is_sample: false,
    timezone: effectiveTimezone(zone.timezone),
    is_cached: false,
    query_status: null,
  };
}
