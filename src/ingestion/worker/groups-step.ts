import type { Kysely } from 'kysely';
import type { Schema } from '../../db/schema.js';
import { ensureGroupTypeIndex } from '../../groups/store.js';
import { toJson } from '../../db/values.js';
import { wellFormedText } from '../../lib/well-formed.js';
import { isPlainObject, type IngestionWarning, type Properties } from '../core/index.js';
import type { GroupUnitOfWork } from './group-unit.js';

type Db = Kysely<Schema>;

/**
 * Group type indexes, asked of the database once per type per batch instead of once per event.
 * A batch's own lookups stay local until the batch commits (`commit`): an index assigned inside a
 * transaction that rolls back must not outlive it. Committed indexes are kept by the worker for
 * good: a type's index never changes once assigned (nothing deletes or renumbers mappings).
 */
export class GroupTypeCache {
  private readonly local = new Map<string, number | undefined>();

  constructor(private readonly committed: Map<string, number> = new Map()) {}

  async index(db: Db, teamId: number, groupType: string): Promise<number | undefined> {
    const key = `${teamId}\u0000${groupType}`;
    const known = this.committed.get(key);
    if (known !== undefined) return known;
    if (this.local.has(key)) return this.local.get(key);
    const index = await ensureGroupTypeIndex(db, teamId, groupType);
    this.local.set(key, index);
    return index;
  }

  /**
   * The index when this worker knows it without asking the database (assigned in a committed
   * batch, or earlier in this one); undefined otherwise. Never assigns one: the batch's preload
   * uses it, and indexes must be assigned in the order the events first use the types.
   */
  known(teamId: number, groupType: string): number | undefined {
    const key = `${teamId}\u0000${groupType}`;
    return this.committed.get(key) ?? this.local.get(key);
  }

  /** After the batch's transaction committed: its assigned indexes are now durable. */
  commit(): void {
    for (const [key, index] of this.local) if (index !== undefined) this.committed.set(key, index);
    this.local.clear();
  }
}

/**
 * The group a `$groupidentify` names (type and key as stored: well-formed text), or undefined when
 * its `$group_type` / `$group_key` are not usable.
 */
export function identifiedGroup(properties: Properties): { type: string; key: string } | undefined {
  const type = properties.$group_type;
  const key = properties.$group_key;
  if (typeof type !== 'string' || !type || (typeof key !== 'string' && typeof key !== 'number') || !String(key)) return undefined;
  return { type: wellFormedText(type), key: wellFormedText(String(key)) };
}

/** Whether the event creates or updates a group, or attaches groups: else processGroups has nothing to do. */
export function touchesGroups(event: string, properties: Properties): boolean {
  return event === '$groupidentify' || isPlainObject(properties.$groups);
}

/**
 * `$groups: {type: key}` on any event attaches it to groups as `$group_<index>` properties (the
 * type gets an index on first use, at most five per project); `$groupidentify` creates or updates
 * the group itself with `$group_set`.
 *
 * Group types and keys are stored in text columns (and looked up by them): NUL and lone surrogates
 * in them become U+FFFD, as in distinct ids.
 */
export async function processGroups(
  db: Db,
  types: GroupTypeCache,
  groups: GroupUnitOfWork,
  teamId: number,
  event: string,
  properties: Properties,
  timestamp: string,
): Promise<IngestionWarning[]> {
  const warnings: IngestionWarning[] = [];
  const identified = event === '$groupidentify' ? identifiedGroup(properties) : undefined;
  if (identified) {
    const { type, key } = identified;
    const index = await types.index(db, teamId, type);
    if (index === undefined) {
      warnings.push({ type: 'group_type_limit_reached', details: { groupType: type } });
    } else {
      const set = isPlainObject(properties.$group_set) ? properties.$group_set : {};
      const existing = await groups.get(teamId, index, key);
      if (!existing) {
        groups.create({ teamId, groupTypeIndex: index, groupKey: key, properties: { ...set }, createdAt: timestamp });
      } else {
        const merged = { ...existing.properties, ...set };
        // As stored (well-formed): a `$group_set` value with NUL equals its stored U+FFFD form.
        if (toJson(merged) !== toJson(existing.properties)) groups.update(existing, merged);
      }
      properties[`$group_${index}`] = key;
    }
  }
  if (isPlainObject(properties.$groups)) {
    for (const [rawType, key] of Object.entries(properties.$groups)) {
      if (key === null || key === undefined || key === '') continue;
      const type = wellFormedText(rawType);
      const index = await types.index(db, teamId, type);
      if (index === undefined) {
        warnings.push({ type: 'group_type_limit_reached', details: { groupType: type } });
        continue;
      }
      properties[`$group_${index}`] = wellFormedText(typeof key === 'string' ? key : JSON.stringify(key));
    }
  }
  return warnings;
}
