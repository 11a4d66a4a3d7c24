import type { Kysely } from 'kysely';
import type { Schema } from '../../platform/db/schema.js';
import { InListQuery, MultiRowInsert } from '../../platform/db/multi-row-insert.js';
import { fromJson, toJson } from '../../platform/db/values.js';
import { updateGroup, type Group } from '../../groups/store.js';
import { ConcurrentWriteConflict } from '../../platform/db/write-conflicts.js';
import type { Properties } from '../core/index.js';
import { isPostgres } from '../../platform/db/dialect.js';

type Db = Kysely<Schema>;

/** A group as one batch sees it: the stored row plus what the batch's `$groupidentify`s did to it. */
interface GroupState extends Group {
  /** Created by this batch: inserted at write-back. */
  isNew: boolean;
  /** Changed by this batch and still to be written. */
  dirty: boolean;
  /** The version the batch read (its write-back checks the row still has it; PostgreSQL). */
  storedVersion: number;
}

/** Keys per preload query: far below both backends' parameter limits. */
const KEYS_PER_QUERY = 500;

/** The stored groups of one team and type among these keys. */
const GROUPS_BY_KEY = new InListQuery(
  (db: Db, [teamId, groupTypeIndex]: [number, number], keys: string[]) =>
    db
      .selectFrom('groups')
      .select(['group_key', 'group_properties', 'created_at', 'version'])
      .where('team_id', '=', teamId)
      .where('group_type_index', '=', groupTypeIndex)
      .where('group_key', 'in', keys),
  KEYS_PER_QUERY,
);

const GROUP_INSERT = new MultiRowInsert('groups', [
  'team_id',
  'group_type_index',
  'group_key',
  'group_properties',
  'created_at',
  'version',
]);

const key = (teamId: number, groupTypeIndex: number, groupKey: string) => `${teamId}\u0000${groupTypeIndex}\u0000${groupKey}`;

/**
 * The worker's in-memory unit of work for groups, as PersonUnitOfWork is for persons: a batch
 * loads the groups its `$groupidentify` events name in one query per team and type, applies the
 * events to these objects in order, and writes the net result once, inside the batch's
 * transaction (new groups in multi-row inserts). It was one read per `$groupidentify` and one
 * write per change, each a round trip on PostgreSQL. Reads go through the same objects the writes
 * changed, so the result is the same as writing each change at once; another worker's batch
 * writing the same group meanwhile makes this one retry (see flush).
 */
export class GroupUnitOfWork {
  /** Group key → its state; null: known not to exist. */
  private readonly groups = new Map<string, GroupState | null>();

  constructor(private readonly db: Db) {}

  /** Loads these groups of one team and type, skipping the ones the batch knows already. */
  async preload(teamId: number, groupTypeIndex: number, groupKeys: Iterable<string>): Promise<void> {
    const missing = [...new Set(groupKeys)].filter((k) => !this.groups.has(key(teamId, groupTypeIndex, k)));
    if (missing.length === 0) return;
    for (const groupKey of missing) this.groups.set(key(teamId, groupTypeIndex, groupKey), null);
    for (const row of await GROUPS_BY_KEY.execute(this.db, [teamId, groupTypeIndex], missing)) {
      this.groups.set(key(teamId, groupTypeIndex, row.group_key), {
        teamId,
        groupTypeIndex,
        groupKey: row.group_key,
        properties: fromJson<Properties>(row.group_properties) ?? {},
        createdAt: row.created_at,
        version: Number(row.version),
        storedVersion: Number(row.version),
        isNew: false,
        dirty: false,
      });
    }
  }

  /** The group as the batch sees it now (loaded on first use when the preload did not have it). */
  async get(teamId: number, groupTypeIndex: number, groupKey: string): Promise<Group | undefined> {
    const k = key(teamId, groupTypeIndex, groupKey);
    if (!this.groups.has(k)) await this.preload(teamId, groupTypeIndex, [groupKey]);
    return this.groups.get(k) ?? undefined;
  }

  /** `$groupidentify` of a group that does not exist: created with `$group_set` as its properties. */
  create(group: Omit<Group, 'version'>): void {
    this.groups.set(key(group.teamId, group.groupTypeIndex, group.groupKey), {
      ...group,
      version: 0,
      storedVersion: 0,
      isNew: true,
      dirty: true,
    });
  }

  /** New properties for an existing group; each change raises its version by one, as stored. */
  update(group: Group, properties: Properties): void {
    const state = this.groups.get(key(group.teamId, group.groupTypeIndex, group.groupKey));
    if (!state) throw new Error('GroupUnitOfWork.update: the group is not one of the batch');
    state.properties = properties;
    state.version += 1;
    state.dirty = true;
  }

  /**
   * Writes the batch's new groups (multi-row) and changed ones, in key order. On PostgreSQL
   * several workers' batches may write the same group at once: a changed group is written only if
   * it still has the version the batch read (else ConcurrentWriteConflict: the batch is retried
   * from fresh reads), and a group two batches both create fails the second's insert on the key
   * (retried alike). Key order makes two batches wait for each other rather than deadlock.
   */
  async flush(): Promise<void> {
    const checked = isPostgres(this.db);
    const created: unknown[][] = [];
    const dirty: Array<[string, GroupState]> = [];
    for (const [k, state] of this.groups) if (state?.dirty) dirty.push([k, state]);
    dirty.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, state] of dirty) {
      if (state.isNew) {
        created.push([state.teamId, state.groupTypeIndex, state.groupKey, toJson(state.properties), state.createdAt, state.version]);
      } else if (!(await updateGroup(this.db, state, checked ? state.storedVersion : undefined)) && checked) {
        throw new ConcurrentWriteConflict(`group ${state.groupKey}`);
      }
    }
    if (created.length > 0) await GROUP_INSERT.execute(this.db, created);
    // Only once everything is written: a failed flush leaves the batch's state as it was.
    for (const [, state] of dirty) {
      state.dirty = false;
      state.isNew = false;
      state.storedVersion = state.version;
    }
  }
}
