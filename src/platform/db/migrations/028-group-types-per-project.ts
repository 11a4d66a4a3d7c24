import type { Kysely } from 'kysely';
import type { HogletMigration } from './column-types.js';

interface MappingRow {
  project_id: number | string;
  team_id: number | string;
  group_type: string;
  group_type_index: number | string;
  name_singular: string | null;
  name_plural: string | null;
}

/**
 * Group types become the project's, as in PostHog (GroupTypeMapping is unique per project): the
 * table stays keyed by environment, and every environment of a project holds the project's whole
 * mapping (groups/core/project-group-types.ts).
 *
 * Before, each environment assigned its own indexes. For each project whose environments agree
 * (no type with two indexes, no index with two types), the union of their rows is copied to every
 * environment of the project. A project whose environments disagree is left as it is: its events
 * already carry `$group_N` by the old indexes, and rewriting them is out of scope. The server logs
 * such projects at start-up (docs/operations.md).
 *
 * Self-contained (a migration that has shipped is never edited): no import of the feature code.
 */
export const groupTypesPerProject: HogletMigration = {
  name: '028-group-types-per-project',
  async up(db: Kysely<any>) {
    const teams = (await db.selectFrom('teams').select(['id', 'project_id']).execute()) as Array<{
      id: number | string;
      project_id: number | string;
    }>;
    const environments = new Map<number, number[]>();
    for (const t of teams) {
      const projectId = Number(t.project_id);
      environments.set(projectId, [...(environments.get(projectId) ?? []), Number(t.id)]);
    }
    const rows = (await db
      .selectFrom('group_type_mappings')
      .innerJoin('teams', 'teams.id', 'group_type_mappings.team_id')
      .select([
        'teams.project_id',
        'group_type_mappings.team_id',
        'group_type_mappings.group_type',
        'group_type_mappings.group_type_index',
        'group_type_mappings.name_singular',
        'group_type_mappings.name_plural',
      ])
      .orderBy('group_type_mappings.team_id')
      .orderBy('group_type_mappings.group_type_index')
      .execute()) as MappingRow[];
    const byProject = new Map<number, MappingRow[]>();
    for (const row of rows) {
      const projectId = Number(row.project_id);
      byProject.set(projectId, [...(byProject.get(projectId) ?? []), row]);
    }
    for (const [projectId, list] of byProject) {
      const union = agreedUnion(list);
      if (!union) continue;
      for (const teamId of environments.get(projectId) ?? []) {
        const held = new Set(list.filter((r) => Number(r.team_id) === teamId).map((r) => r.group_type));
        const missing = union.filter((r) => !held.has(r.group_type));
        if (missing.length === 0) continue;
        await db
          .insertInto('group_type_mappings')
          .values(
            missing.map((r) => ({
              team_id: teamId,
              group_type: r.group_type,
              group_type_index: Number(r.group_type_index),
              name_singular: r.name_singular,
              name_plural: r.name_plural,
            })),
          )
          .execute();
      }
    }
  },
};

/** One row per type when the rows agree (the first environment's names), else undefined. */
function agreedUnion(rows: MappingRow[]): MappingRow[] | undefined {
  const byType = new Map<string, MappingRow>();
  const typeOfIndex = new Map<number, string>();
  for (const row of rows) {
    const index = Number(row.group_type_index);
    const known = byType.get(row.group_type);
    if (known && Number(known.group_type_index) !== index) return undefined;
    if ((typeOfIndex.get(index) ?? row.group_type) !== row.group_type) return undefined;
    if (!known) byType.set(row.group_type, row);
    else if (known.name_singular === null && known.name_plural === null) {
      byType.set(row.group_type, { ...known, name_singular: row.name_singular, name_plural: row.name_plural });
    }
    typeOfIndex.set(index, row.group_type);
  }
  return [...byType.values()];
}
