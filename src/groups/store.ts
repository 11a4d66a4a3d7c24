import { literalContainsPattern } from '../posthog/property-conditions.js';
import { sql, type Expression, type Kysely, type Selectable } from 'kysely';
import {
  assignProjectGroupType,
  environmentsAgree,
  MAX_GROUP_TYPES,
  projectGroupTypes,
  type EnvironmentGroupType,
} from './core/project-group-types.js';
import type { Schema } from '../platform/db/schema.js';
import { fromJson, toJson } from '../platform/db/values.js';
import type { GroupsTable } from './tables.js';
import { isPostgres } from '../platform/db/dialect.js';

type Db = Kysely<Schema>;

export { MAX_GROUP_TYPES };

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
 * The index of a group type, assigning one on first use (assignProjectGroupType: the project's
 * index when another environment of the project has the type, else the first index free in the
 * whole project), written to every environment of the project at once. Undefined when the project
 * already has five types (PostHog ignores further types).
 *
 * Concurrent assignments in one project (ingestion batches of several workers, in one environment
 * or two) are serialised by a lock on the project's row, taken in the caller's transaction (or in
 * one of its own) and held until it ends: the second reads the mapping only once the first has
 * committed. An environment created meanwhile takes the same lock (lockProjectGroupTypes) before
 * it copies the project's types (copyProjectGroupTypes).
 */
export async function ensureGroupTypeIndex(db: Db, teamId: number, groupType: string): Promise<number | undefined> {
  const existing = await groupTypeIndexOf(db, teamId, groupType);
  if (existing !== undefined) return existing;
  if (!db.isTransaction) return db.transaction().execute((trx) => assignGroupTypeIndex(trx, teamId, groupType));
  return assignGroupTypeIndex(db, teamId, groupType);
}

async function assignGroupTypeIndex(trx: Db, teamId: number, groupType: string): Promise<number | undefined> {
  const projectId = await lockProjectOf(trx, teamId);
  if (projectId === undefined) return undefined;
  const { rows, environments } = await projectMappings(trx, projectId);
  const assignment = assignProjectGroupType(rows, environments, teamId, groupType);
  if (!assignment) return undefined;
  if (assignment.teamIds.length > 0) {
    await trx
      .insertInto('group_type_mappings')
      .values(
        assignment.teamIds.map((id) => ({
          team_id: id,
          group_type: groupType,
          group_type_index: assignment.groupTypeIndex,
          name_singular: null,
          name_plural: null,
        })),
      )
      .execute();
  }
  return assignment.groupTypeIndex;
}

/**
 * Locks the environment's project row until the transaction ends (PostgreSQL; SQLite's write
 * transaction holds the whole database) and returns the project's id; undefined when the
 * environment is gone.
 */
async function lockProjectOf(trx: Db, teamId: number): Promise<number | undefined> {
  const query = trx
    .selectFrom('projects')
    .select('id')
    .where('id', '=', (eb) => eb.selectFrom('teams').select('project_id').where('teams.id', '=', teamId));
  const row = await (isPostgres(trx) ? query.forUpdate() : query).executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/** Every environment of the project, and their group type rows. */
async function projectMappings(db: Db, projectId: number): Promise<{ rows: StoredGroupType[]; environments: number[] }> {
  const teams = await db.selectFrom('teams').select('id').where('project_id', '=', projectId).orderBy('id').execute();
  const rows = await db
    .selectFrom('group_type_mappings')
    .innerJoin('teams', 'teams.id', 'group_type_mappings.team_id')
    .select([
      'group_type_mappings.team_id',
      'group_type_mappings.group_type',
      'group_type_mappings.group_type_index',
      'group_type_mappings.name_singular',
      'group_type_mappings.name_plural',
    ])
    .where('teams.project_id', '=', projectId)
    .execute();
  return {
    environments: teams.map((t) => Number(t.id)),
    rows: rows.map((r) => ({
      teamId: Number(r.team_id),
      groupType: r.group_type,
      groupTypeIndex: Number(r.group_type_index),
      nameSingular: r.name_singular,
      namePlural: r.name_plural,
    })),
  };
}

type StoredGroupType = EnvironmentGroupType & Pick<GroupTypeMapping, 'nameSingular' | 'namePlural'>;

/**
 * Takes, in a transaction that is to create an environment of the project, the lock group type
 * assignments take; before the environment's row is inserted (whose foreign key would otherwise
 * hold a weaker lock on the project's row first).
 */
export async function lockProjectGroupTypes(trx: Db, projectId: number): Promise<void> {
  const query = trx.selectFrom('projects').select('id').where('id', '=', projectId);
  await (isPostgres(trx) ? query.forUpdate() : query).execute();
}

/**
 * Gives a new environment its project's group types (projectGroupTypes), in the transaction that
 * created it, which already holds the lock assignments take (lockProjectGroupTypes): an assignment
 * in another environment either committed before (its rows are copied) or waits and then sees the
 * new environment.
 */
export async function copyProjectGroupTypes(trx: Db, projectId: number, teamId: number): Promise<void> {
  const { rows } = await projectMappings(trx, projectId);
  const copied = projectGroupTypes(rows.filter((r) => r.teamId !== teamId));
  if (copied.length === 0) return;
  await trx
    .insertInto('group_type_mappings')
    .values(
      copied.map((r) => ({
        team_id: teamId,
        group_type: r.groupType,
        group_type_index: r.groupTypeIndex,
        name_singular: r.nameSingular,
        name_plural: r.namePlural,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The projects whose environments disagree on their group types (migration 028 left them as they were). */
export async function projectsWithConflictingGroupTypes(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('group_type_mappings')
    .innerJoin('teams', 'teams.id', 'group_type_mappings.team_id')
    .select(['teams.project_id', 'group_type_mappings.team_id', 'group_type_mappings.group_type', 'group_type_mappings.group_type_index'])
    .execute();
  const byProject = new Map<number, EnvironmentGroupType[]>();
  for (const r of rows) {
    const projectId = Number(r.project_id);
    let list = byProject.get(projectId);
    if (!list) byProject.set(projectId, (list = []));
    list.push({ teamId: Number(r.team_id), groupType: r.group_type, groupTypeIndex: Number(r.group_type_index) });
  }
  return [...byProject]
    .filter(([, list]) => !environmentsAgree(list))
    .map(([id]) => id)
    .sort((a, b) => a - b);
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
