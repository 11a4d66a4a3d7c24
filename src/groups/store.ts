import { literalContainsPattern } from '../posthog/property-conditions.js';
import { sql, type Expression, type Kysely, type Selectable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromJson, toJson } from '../platform/db/values.js';
import type { GroupsTable } from './tables.js';

type Db = Kysely<Schema>;

/** PostHog allows five group types per project, indexed 0..4 in order of first use. */
export const MAX_GROUP_TYPES = 5;

export interface GroupTypeMapping {
  groupType: string;
  groupTypeIndex: number;
  nameSingular: string | null;
  namePlural: string | null;
}

export interface Group {
  teamId: number;
  groupTypeIndex: number;
  groupKey: string;
  properties: Record<string, unknown>;
  createdAt: string;
  version: number;
}

export async function listGroupTypes(db: Db, teamId: number): Promise<GroupTypeMapping[]> {
  const rows = await db.selectFrom('group_type_mappings').selectAll().where('team_id', '=', teamId).orderBy('group_type_index').execute();
  return rows.map((r) => ({
    groupType: r.group_type,
    groupTypeIndex: Number(r.group_type_index),
    nameSingular: r.name_singular,
    namePlural: r.name_plural,
  }));
}

/** The index of a group type the project has, or undefined. */
export async function groupTypeIndexOf(db: Db, teamId: number, groupType: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('group_type_mappings')
    .select('group_type_index')
    .where('team_id', '=', teamId)
    .where('group_type', '=', groupType)
    .executeTakeFirst();
  return row ? Number(row.group_type_index) : undefined;
}

/**
 * The index of a group type, assigning the next free one on first use. Undefined when the project
 * already has five types (PostHog ignores further types).
 *
 * Two transactions may assign at once (concurrent ingestion batches on PostgreSQL): the insert
 * that loses on the type (the other took it) or on the index (the other took that index for
 * another type) does nothing, after waiting for the other to commit. The mapping is then read
 * again: the type's index when the other took the type, else the next free index is tried,
 * until the project has five types.
 */
export async function ensureGroupTypeIndex(db: Db, teamId: number, groupType: string): Promise<number | undefined> {
  const existing = await groupTypeIndexOf(db, teamId, groupType);
  if (existing !== undefined) return existing;
  // Each round either finds the type or sees one more index taken: at most one per index.
  for (let round = 0; round <= MAX_GROUP_TYPES; round++) {
    const used = await listGroupTypes(db, teamId);
    const mine = used.find((u) => u.groupType === groupType);
    if (mine) return mine.groupTypeIndex;
    if (used.length >= MAX_GROUP_TYPES) return undefined;
    const taken = new Set(used.map((u) => u.groupTypeIndex));
    let index = 0;
    while (taken.has(index)) index++;
    await db
      .insertInto('group_type_mappings')
      .values({ team_id: teamId, group_type: groupType, group_type_index: index, name_singular: null, name_plural: null })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const row = await groupTypeIndexOf(db, teamId, groupType);
    if (row !== undefined) return row;
  }
  return undefined;
}

function toGroup(row: Selectable<GroupsTable>): Group {
  return {
    teamId: Number(row.team_id),
    groupTypeIndex: Number(row.group_type_index),
    groupKey: row.group_key,
    properties: fromJson<Record<string, unknown>>(row.group_properties) ?? {},
    createdAt: row.created_at,
    version: Number(row.version),
  };
}

export async function getGroup(db: Db, teamId: number, groupTypeIndex: number, groupKey: string): Promise<Group | undefined> {
  const row = await db
    .selectFrom('groups')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('group_type_index', '=', groupTypeIndex)
    .where('group_key', '=', groupKey)
    .executeTakeFirst();
  return row && toGroup(row);
}

/**
 * Writes a group's properties and version; with `storedVersion`, only if the row still has that
 * version (a concurrent writer's change is not overwritten). Returns whether the row was written.
 */
export async function updateGroup(db: Db, group: Group, storedVersion?: number): Promise<boolean> {
  let query = db
    .updateTable('groups')
    .set({ group_properties: toJson(group.properties), version: group.version })
    .where('team_id', '=', group.teamId)
    .where('group_type_index', '=', group.groupTypeIndex)
    .where('group_key', '=', group.groupKey);
  if (storedVersion !== undefined) query = query.where('version', '=', storedVersion);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The filters of PostHog's groups list (ee/clickhouse/views/groups.py, models/group/util.list_groups). */
export interface GroupListFilter {
  /** `?group_key=`: the key contains it, case-insensitively. */
  keyContains?: string | undefined;
  /** `?search=`: the properties' JSON text contains it, or the key equals it, case-insensitively. */
  search?: string | undefined;
}

/**
 * Case-insensitive substring test, the same on both backends: SQLite has no default LIKE escape
 * character (PostgreSQL's is the backslash), so it is named; both sides go through the backend's
 * lower() so the needle and the text are folded alike (SQLite folds ASCII only).
 */
function icontains(text: Expression<unknown>, value: string) {
  return sql<boolean>`lower(${text}) like lower(${literalContainsPattern(value)}) escape '\\'`;
}

export async function listGroups(
  db: Db,
  teamId: number,
  groupTypeIndex: number,
  filter: GroupListFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; groups: Group[] }> {
  let query = db.selectFrom('groups').where('team_id', '=', teamId).where('group_type_index', '=', groupTypeIndex);
  const { keyContains, search } = filter;
  if (keyContains) query = query.where(icontains(sql.ref('group_key'), keyContains));
  if (search) {
    query = query.where((eb) =>
      eb.or([
        icontains(eb.cast('group_properties', 'text'), search),
        eb(eb.fn('lower', ['group_key']), '=', eb.fn('lower', [eb.val(search)])),
      ]),
    );
  }
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  // Newest first; equal creation times are ordered by key (descending), as PostHog's keyset does.
  const rows = await query
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('group_key', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(total?.n ?? 0), groups: rows.map(toGroup) };
}
