/**
 * Group types are the project's, as in PostHog (GroupTypeMapping is unique per project on the type
 * and on the index): Hoglet keeps a copy of the project's mapping in every environment's rows of
 * `group_type_mappings`. These rules decide, from every environment's rows, which index a type
 * gets and which environments receive it. No I/O.
 *
 * A project whose environments disagree (a type with two indexes, or an index with two types,
 * from before the mapping was the project's; see migration 028) keeps its rows: events already
 * stored carry `$group_N` by those indexes.
 */

/** PostHog allows five group types per project, indexed 0..4 in order of first use. */
export const MAX_GROUP_TYPES = 5;

export interface EnvironmentGroupType {
  teamId: number;
  groupType: string;
  groupTypeIndex: number;
}

export interface GroupTypeAssignment {
  groupTypeIndex: number;
  /** The environments that get the row: those with neither this type nor this index. */
  teamIds: number[];
}

/**
 * The index a type new to `teamId` gets, and where it is written; undefined when the environment
 * or the project already has five types.
 *
 * The index another environment of the project gives the type, when this environment has it
 * free (the lowest such); otherwise the first index no environment of the project uses. In a
 * project whose environments agree, that is PostHog's "first unused of 0–4 per project".
 */
export function assignProjectGroupType(
  rows: readonly EnvironmentGroupType[],
  environments: readonly number[],
  teamId: number,
  groupType: string,
): GroupTypeAssignment | undefined {
  const own = rows.filter((r) => r.teamId === teamId);
  const mine = own.find((r) => r.groupType === groupType);
  if (mine) return { groupTypeIndex: mine.groupTypeIndex, teamIds: [] };
  if (own.length >= MAX_GROUP_TYPES) return undefined;
  const ownIndexes = new Set(own.map((r) => r.groupTypeIndex));
  const elsewhere = rows
    .filter((r) => r.groupType === groupType)
    .map((r) => r.groupTypeIndex)
    .sort((a, b) => a - b);
  let index = elsewhere.find((i) => !ownIndexes.has(i));
  if (index === undefined) {
    const used = new Set(rows.map((r) => r.groupTypeIndex));
    for (let i = 0; i < MAX_GROUP_TYPES && index === undefined; i++) if (!used.has(i)) index = i;
  }
  if (index === undefined) return undefined;
  const chosen = index;
  const teamIds = [...new Set([teamId, ...environments])]
    .sort((x, y) => x - y)
    .filter((id) => !rows.some((r) => r.teamId === id && (r.groupType === groupType || r.groupTypeIndex === chosen)));
  return { groupTypeIndex: chosen, teamIds };
}

/**
 * The project's mapping, for a new environment: each environment's rows in turn (by environment
 * id, then index), a pair kept unless its type or its index is already taken. In a project whose
 * environments agree, that is the union of their rows.
 */
export function projectGroupTypes<T extends EnvironmentGroupType>(rows: readonly T[]): T[] {
  const ordered = [...rows].sort((a, b) => a.teamId - b.teamId || a.groupTypeIndex - b.groupTypeIndex);
  const types = new Set<string>();
  const indexes = new Set<number>();
  const kept: T[] = [];
  for (const row of ordered) {
    if (types.has(row.groupType) || indexes.has(row.groupTypeIndex)) continue;
    types.add(row.groupType);
    indexes.add(row.groupTypeIndex);
    kept.push(row);
  }
  return kept;
}

/** Whether the environments' rows agree: no type with two indexes, no index with two types. */
export function environmentsAgree(rows: readonly EnvironmentGroupType[]): boolean {
  const indexOf = new Map<string, number>();
  const typeOf = new Map<number, string>();
  for (const row of rows) {
    if ((indexOf.get(row.groupType) ?? row.groupTypeIndex) !== row.groupTypeIndex) return false;
    if ((typeOf.get(row.groupTypeIndex) ?? row.groupType) !== row.groupType) return false;
    indexOf.set(row.groupType, row.groupTypeIndex);
    typeOf.set(row.groupTypeIndex, row.groupType);
  }
  return true;
}
