/**
 * Group type mappings (index → name) per environment, held in memory for `/decide`. A mapping
 * row is never renamed or reassigned once written (the ingestion worker only adds types, up to
 * five), so a cached mapping stays right for every index it holds; an index a flag needs that is
 * not held yet may have been added since, in this process or another, so it is read again. A
 * type first seen in another environment of the project is written to this environment's rows in
 * the same transaction (group types are the project's: groups/store.ts), so that read finds it
 * too. No change notice is published for new types, hence that rule instead of invalidation; the
 * lifetime only bounds memory for environments that are gone.
 */
import type { Kysely } from 'kysely';
import type { Schema } from '../../platform/db/schema.js';
import { listGroupTypes } from '../../groups/store.js';

const TTL_MS = 5 * 60_000;
/**
 * A missing index is looked for again at most this often: flags can target a group type no event
 * has created yet, and such a flag must not cost every request a database read.
 */
const MISSING_RECHECK_MS = 2_000;
const MAX_ENTRIES = 10_000;

export interface GroupTypes {
  /** Group type index (as text) → group type name, the engine's `group_type_mapping`. */
  mapping: Record<string, string>;
  byIndex: ReadonlyMap<number, string>;
}

export class GroupTypeCache {
  private readonly entries = new Map<number, { types: GroupTypes; expires: number; readAt: number }>();

  constructor(private readonly db: Kysely<Schema>) {}

  /** The team's mapping when the cache can answer without a read (else undefined: `get`). */
  cached(teamId: number, needed: readonly number[]): GroupTypes | undefined {
    const cached = this.entries.get(teamId);
    if (!cached) return undefined;
    const now = Date.now();
    if (cached.expires <= now) return undefined;
    if (now - cached.readAt < MISSING_RECHECK_MS) return cached.types;
    for (const index of needed) if (!cached.types.byIndex.has(index)) return undefined;
    return cached.types;
  }

  /** The team's mapping, read again when it lacks one of `needed` (or is old). */
  async get(teamId: number, needed: readonly number[]): Promise<GroupTypes> {
    const cached = this.cached(teamId, needed);
    if (cached) return cached;
    const now = Date.now();
    const rows = await listGroupTypes(this.db, teamId);
    const byIndex = new Map(rows.map((row) => [row.groupTypeIndex, row.groupType]));
    // Frozen: the engine memoises what it derives from a frozen mapping.
    const types: GroupTypes = {
      mapping: Object.freeze(Object.fromEntries([...byIndex].map(([index, name]) => [String(index), name]))),
      byIndex,
    };
    this.entries.delete(teamId);
    this.entries.set(teamId, { types, expires: now + TTL_MS, readAt: now });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return types;
  }
}

const caches = new WeakMap<Kysely<Schema>, GroupTypeCache>();

/** One cache per database handle (so per server context). */
export function groupTypeCache(db: Kysely<Schema>): GroupTypeCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new GroupTypeCache(db)));
  return cache;
}
