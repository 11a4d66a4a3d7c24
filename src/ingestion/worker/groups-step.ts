import type { Kysely } from 'kysely';
import type { Schema } from '../../platform/db/schema.js';
import { ensureGroupTypeIndex, groupTypeIndexOf } from '../../groups/store.js';
import { toJson } from '../../platform/db/values.js';
import type { IngestionWarning } from '../core/index.js';
import type { GroupUnitOfWork } from './group-unit.js';
import type { PreparedGroups } from './prepare.js';

type Db = Kysely<Schema>;

/**
 * Group type indexes, asked of the database once per type per batch instead of once per event.
 * A batch's own lookups stay local until the batch commits (`commit`): an index assigned inside a
 * transaction that rolls back must not outlive it. Committed indexes are kept by the worker for
 * good: a type's index never changes once assigned (nothing deletes or renumbers mappings). Keys
 * are per environment; a type another environment of the project assigned is already in this
 * one's rows (group types are the project's: groups/store.ts).
 */
export class GroupTypeCache {
  private readonly local = new Map<string, number | undefined>();
  /** Types `existing` found without an index in this batch (asked once, not once per event). */
  private readonly unassigned = new Set<string>();

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
   * The index when the type has one already; never assigns one (PostHog's error tracking maps
   * `$groups` with a read-only group type manager). A type found without one is remembered apart
   * from `local` (which says the limit is reached): a later event of the batch may still assign it.
   */
  async existing(db: Db, teamId: number, groupType: string): Promise<number | undefined> {
    const key = `${teamId}\u0000${groupType}`;
    const known = this.committed.get(key) ?? this.local.get(key);
    if (known !== undefined || this.unassigned.has(key)) return known;
    const index = await groupTypeIndexOf(db, teamId, groupType);
    if (index === undefined) {
      this.unassigned.add(key);
      return undefined;
    }
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
    this.unassigned.clear();
  }
}

/**
 * `$groups: {type: value}` on an event that processes its person attaches it to groups as
 * `$group_<index>` properties (every type gets an index on first use, at most five per project;
 * the value is copied as it is); `$groupidentify` makes sure of its type and creates or updates the
 * group itself with `$group_set`. Its own group is not attached: PostHog's `addGroupProperties`
 * reads `$groups` only. Returns the `$group_<index>` properties to add to the event (in the order
 * they are set; a later one of the same index replaces the value in place).
 *
 * `readOnly` (error tracking's `$exception`): only types that have an index already are attached,
 * and none is assigned.
 *
 * Group types and keys come well-formed from the prepare step (NUL and lone surrogates become
 * U+FFFD, as in distinct ids): they are stored in text columns and looked up by them.
 */
export async function processGroups(
  db: Db,
  types: GroupTypeCache,
  groups: GroupUnitOfWork,
  teamId: number,
  named: PreparedGroups,
  timestamp: string,
  warnings: IngestionWarning[],
  readOnly = false,
): Promise<Map<string, unknown>> {
  const added = new Map<string, unknown>();
  if (named.identified) {
    const { type, key, set } = named.identified;
    const index = await types.index(db, teamId, type);
    if (index === undefined) {
      warnings.push({ type: 'group_type_limit_reached', details: { groupType: type } });
    } else if (key !== undefined) {
      const existing = await groups.get(teamId, index, key);
      if (!existing) {
        groups.create({ teamId, groupTypeIndex: index, groupKey: key, properties: { ...set }, createdAt: timestamp });
      } else {
        const merged = { ...existing.properties, ...set };
        // As stored (well-formed): a `$group_set` value with NUL equals its stored U+FFFD form.
        if (toJson(merged) !== toJson(existing.properties)) groups.update(existing, merged);
      }
    }
  }
  for (const [type, value] of named.attached) {
    const index = readOnly ? await types.existing(db, teamId, type) : await types.index(db, teamId, type);
    if (index === undefined) {
      if (!readOnly) warnings.push({ type: 'group_type_limit_reached', details: { groupType: type } });
      continue;
    }
    added.set(`$group_${index}`, value);
  }
  return added;
}
