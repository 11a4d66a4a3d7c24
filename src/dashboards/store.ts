import type { Kysely, Selectable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, nowIso, toJson } from '../platform/db/values.js';
import type { DashboardsTable } from './tables.js';

type Db = Kysely<Schema>;

export interface Dashboard {
  id: number;
  teamId: number;
  name: string | null;
  description: string;
  pinned: boolean;
  tags: string[];
  filters: DashboardFilters;
  deleted: boolean;
  createdById: number | null;
  createdAt: string;
  lastModifiedAt: string;
}

/** The dashboard-wide filters PostHog keeps on Dashboard.filters; Hoglet applies the date range. */
export interface DashboardFilters {
  date_from?: string | null;
  date_to?: string | null;
  [key: string]: unknown;
}

export interface Tile {
  id: number;
  dashboardId: number;
  insightId: number;
  layouts: Record<string, unknown>;
  color: string | null;
}

function toDashboard(row: Selectable<DashboardsTable>): Dashboard {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    name: row.name,
    description: row.description,
    pinned: fromBool(row.pinned),
    tags: fromJson<string[]>(row.tags) ?? [],
    filters: fromJson<DashboardFilters>(row.filters) ?? {},
    deleted: fromBool(row.deleted),
    createdById: row.created_by_id === null ? null : Number(row.created_by_id),
    createdAt: row.created_at,
    lastModifiedAt: row.last_modified_at,
  };
}

export interface DashboardFields {
  name: string | null;
  description: string;
  pinned: boolean;
  tags: string[];
  filters: DashboardFilters;
  deleted: boolean;
}

export async function insertDashboard(db: Db, teamId: number, fields: DashboardFields, userId: number): Promise<Dashboard> {
  const now = nowIso();
  const row = await db
    .insertInto('dashboards')
    .values({
      team_id: teamId,
      ...fields,
      tags: toJson(fields.tags),
      filters: toJson(fields.filters),
      created_by_id: userId,
      created_at: now,
      last_modified_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDashboard(row);
}

export async function updateDashboard(db: Db, dashboard: Dashboard, fields: DashboardFields): Promise<Dashboard> {
  const row = await db
    .updateTable('dashboards')
    .set({ ...fields, tags: toJson(fields.tags), filters: toJson(fields.filters), last_modified_at: nowIso() })
    .where('id', '=', dashboard.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDashboard(row);
}

export async function getDashboard(db: Db, teamId: number, id: number): Promise<Dashboard | undefined> {
  const row = await db.selectFrom('dashboards').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return row && toDashboard(row);
}

/** The environment a dashboard belongs to, whatever it is. */
export async function dashboardTeamId(db: Db, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('dashboards').select('team_id').where('id', '=', id).executeTakeFirst();
  return row ? Number(row.team_id) : undefined;
}

export async function listDashboards(
  db: Db,
  teamId: number,
  options: { includeDeleted: boolean; limit: number; offset: number },
): Promise<{ count: number; dashboards: Dashboard[] }> {
  let query = db.selectFrom('dashboards').where('team_id', '=', teamId);
  if (!options.includeDeleted) query = query.where('deleted', '=', false);
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy('id', 'asc').limit(options.limit).offset(options.offset).execute();
  return { count: Number(total?.n ?? 0), dashboards: rows.map(toDashboard) };
}

/** A dashboard's live tiles in placement order. */
export async function tilesOfDashboard(db: Db, dashboardId: number): Promise<Tile[]> {
  const rows = await db
    .selectFrom('dashboard_tiles')
    .selectAll()
    .where('dashboard_id', '=', dashboardId)
    .where('deleted', '=', false)
    .orderBy('id', 'asc')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    dashboardId: Number(r.dashboard_id),
    insightId: Number(r.insight_id),
    layouts: fromJson<Record<string, unknown>>(r.layouts) ?? {},
    color: r.color,
  }));
}

/** The live, non-deleted dashboards an insight is placed on, with the tile ids. */
export async function dashboardsOfInsight(db: Db, insightId: number): Promise<Array<{ tileId: number; dashboardId: number }>> {
  const rows = await db
    .selectFrom('dashboard_tiles')
    .innerJoin('dashboards', 'dashboards.id', 'dashboard_tiles.dashboard_id')
    .select(['dashboard_tiles.id as tile_id', 'dashboard_tiles.dashboard_id'])
    .where('dashboard_tiles.insight_id', '=', insightId)
    .where('dashboard_tiles.deleted', '=', false)
    .where('dashboards.deleted', '=', false)
    .orderBy('dashboard_tiles.id', 'asc')
    .execute();
  return rows.map((r) => ({ tileId: Number(r.tile_id), dashboardId: Number(r.dashboard_id) }));
}

/** A dashboard as PostHog's activity log describes one (`describe_change`): its id and name. */
export interface DashboardLink {
  id: number;
  name: string | null;
}

/** The insight's live dashboards as activity-log links, in tile order (PostHog's `dashboard_tiles.all()`). */
export async function dashboardLinksOfInsight(db: Db, insightId: number): Promise<DashboardLink[]> {
  const rows = await db
    .selectFrom('dashboard_tiles')
    .innerJoin('dashboards', 'dashboards.id', 'dashboard_tiles.dashboard_id')
    .select(['dashboards.id', 'dashboards.name'])
    .where('dashboard_tiles.insight_id', '=', insightId)
    .where('dashboard_tiles.deleted', '=', false)
    .where('dashboards.deleted', '=', false)
    .orderBy('dashboard_tiles.id', 'asc')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), name: r.name }));
}

/** These dashboards, the live ones, as activity-log links, in the order asked. */
export async function dashboardLinks(db: Db, ids: number[]): Promise<DashboardLink[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('dashboards').select(['id', 'name']).where('id', 'in', ids).where('deleted', '=', false).execute();
  const byId = new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), name: r.name }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Places the insight on exactly these dashboards (PostHog's insight `dashboards` field): new
 * tiles for added ones, removed tiles marked deleted.
 */
export async function setInsightDashboards(db: Db, insightId: number, dashboardIds: number[]): Promise<void> {
  const current = await db
    .selectFrom('dashboard_tiles')
    .select(['id', 'dashboard_id'])
    .where('insight_id', '=', insightId)
    .where('deleted', '=', false)
    .execute();
  const have = new Set(current.map((r) => Number(r.dashboard_id)));
  const want = new Set(dashboardIds);
  const removed = current.filter((r) => !want.has(Number(r.dashboard_id))).map((r) => Number(r.id));
  if (removed.length) await db.updateTable('dashboard_tiles').set({ deleted: true }).where('id', 'in', removed).execute();
  for (const dashboardId of dashboardIds) {
    if (have.has(dashboardId)) continue;
    await db
      .insertInto('dashboard_tiles')
      .values({
        dashboard_id: dashboardId,
        insight_id: insightId,
        layouts: toJson({}),
        color: null,
        deleted: false,
        created_at: nowIso(),
      })
      .execute();
  }
}

/** What a PATCH may change on one of the dashboard's tiles (PostHog's DashboardSerializer `tiles`). */
export interface TileChange {
  id: number;
  layouts?: Record<string, unknown>;
  color?: string | null;
  deleted?: boolean;
}

/**
 * Applies the changes to the dashboard's own tiles; ids of other dashboards' tiles change
 * nothing, as PostHog filters its update by dashboard.
 */
export async function updateTiles(db: Db, dashboardId: number, changes: TileChange[]): Promise<void> {
  for (const change of changes) {
    const set: { layouts?: string; color?: string | null; deleted?: boolean } = {};
    if (change.layouts !== undefined) set.layouts = toJson(change.layouts);
    if (change.color !== undefined) set.color = change.color;
    if (change.deleted !== undefined) set.deleted = change.deleted;
    if (Object.keys(set).length === 0) continue;
    await db.updateTable('dashboard_tiles').set(set).where('id', '=', change.id).where('dashboard_id', '=', dashboardId).execute();
  }
}
