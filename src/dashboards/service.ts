import { mapBounded } from '../lib/map-in-order.js';
import { diffFields, recordActivity } from '../activity/store.js';
import type { AppContext } from '../context.js';
import { serializeInsight, type PageLookups } from '../insights/service.js';
import { getInsightsByIds } from '../insights/store.js';
import type { Team, User } from '../environments/models.js';
import {
  insertDashboard,
  tilesOfDashboard,
  updateDashboard,
  updateTiles,
  type Dashboard,
  type DashboardFields,
  type TileChange,
} from './store.js';
import { applyDashboardFilters, readDashboardFilters, readTileChanges } from './dashboard-body.js';
import { readNameAndDescription, serializerData, readBoolean, readStringTags } from '../posthog/fields.js';

function readDashboardBody(raw: unknown, existing?: Dashboard): { fields: DashboardFields; tiles: TileChange[] } {
  const body = serializerData(raw);
  const fields: DashboardFields = existing
    ? {
        name: existing.name,
        description: existing.description,
        pinned: existing.pinned,
        tags: existing.tags,
        filters: existing.filters,
        deleted: existing.deleted,
      }
    : { name: null, description: '', pinned: false, tags: [], filters: {}, deleted: false };
  Object.assign(fields, readNameAndDescription(body));
  for (const flag of ['pinned', 'deleted'] as const) {
    if (flag in body) {
      fields[flag] = readBoolean(body[flag], flag);
    }
  }
  if ('tags' in body) fields.tags = readStringTags(body.tags);
  if ('filters' in body) fields.filters = readDashboardFilters(body.filters);
  return { fields, tiles: 'tiles' in body ? readTileChanges(body.tiles) : [] };
}

export async function createDashboard(ctx: AppContext, team: Team, user: User, body: unknown): Promise<Dashboard> {
  const { fields } = readDashboardBody(body);
  return ctx.database.db.transaction().execute(async (trx) => {
    const dashboard = await insertDashboard(trx, team.id, fields, user.id);
    await recordActivity(trx, {
      organizationId: team.organizationId,
      teamId: team.id,
      scope: 'Dashboard',
      itemId: dashboard.id,
      activity: 'created',
      actor: { userId: user.id },
      name: dashboard.name,
    });
    return dashboard;
  });
}

export async function editDashboard(ctx: AppContext, team: Team, user: User, dashboard: Dashboard, body: unknown): Promise<Dashboard> {
  const { fields, tiles } = readDashboardBody(body, dashboard);
  return ctx.database.db.transaction().execute(async (trx) => {
    const updated = await updateDashboard(trx, dashboard, fields);
    // Layouts and colours are arrangement, not content: PostHog logs no activity for them either.
    await updateTiles(trx, dashboard.id, tiles);
    const pick = (d: Dashboard) => ({
      name: d.name,
      description: d.description,
      pinned: d.pinned,
      tags: d.tags,
      filters: d.filters,
      deleted: d.deleted,
    });
    const changes = diffFields('Dashboard', pick(dashboard), pick(updated));
    if (changes.length) {
      await recordActivity(trx, {
        organizationId: team.organizationId,
        teamId: team.id,
        scope: 'Dashboard',
        itemId: dashboard.id,
        activity: !dashboard.deleted && updated.deleted ? 'deleted' : 'updated',
        actor: { userId: user.id },
        name: updated.name,
        changes,
      });
    }
    return updated;
  });
}

/** The dashboard's live insights in tile order (what a dashboard subscription delivers). */
export async function dashboardInsights(ctx: AppContext, dashboard: Dashboard) {
  const tiles = await tilesOfDashboard(ctx.database.db, dashboard.id);
  const insights = await getInsightsByIds(
    ctx.database.db,
    tiles.map((t) => t.insightId),
  );
  return tiles
    .map((tile) => ({ tile, insight: insights.get(tile.insightId) }))
    .filter((t): t is { tile: typeof t.tile; insight: NonNullable<typeof t.insight> } => !!t.insight && !t.insight.deleted);
}

function basic(dashboard: Dashboard, createdBy: unknown) {
  return {
    id: dashboard.id,
    name: dashboard.name,
    description: dashboard.description,
    pinned: dashboard.pinned,
    created_at: dashboard.createdAt,
    created_by: createdBy,
    last_accessed_at: null,
    is_shared: false,
    deleted: dashboard.deleted,
    creation_mode: 'default',
    tags: dashboard.tags,
    restriction_level: 21,
    effective_restriction_level: 21,
    effective_privilege_level: 37,
  };
}

/** DashboardBasicSerializer: what the list answers. */
export async function serializeDashboardBasic(dashboard: Dashboard, users: PageLookups) {
  return basic(dashboard, await users.get(dashboard.createdById));
}

/**
 * Tiles whose results are computed at a time: their queries are independent, and the engine runs
 * them side by side (each with the engine's threads); a few at once keeps the page's memory and
 * the two cores' queue small.
 */
const TILES_AT_ONCE = 3;

/** DashboardSerializer: with its tiles and their insights' results, over the dashboard's date range when it sets one. */
export async function serializeDashboard(ctx: AppContext, dashboard: Dashboard, users: PageLookups) {
  const tiles = await dashboardInsights(ctx, dashboard);
  return {
    ...basic(dashboard, await users.get(dashboard.createdById)),
    filters: dashboard.filters,
    variables: {},
    tiles: await mapBounded(tiles, TILES_AT_ONCE, async ({ tile, insight }) => ({
      id: tile.id,
      layouts: tile.layouts,
      color: tile.color,
      insight: await serializeInsight(ctx, { ...insight, query: applyDashboardFilters(insight.query, dashboard.filters) }, users),
      text: null,
      deleted: false,
      is_cached: false,
    })),
  };
}
