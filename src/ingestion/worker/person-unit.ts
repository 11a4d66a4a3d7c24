import type { Kysely } from 'kysely';
import type { Schema } from '../../platform/db/schema.js';
import {
  foldPersons,
  getPersonsByDistinctIds,
  insertDistinctIds,
  insertPersons,
  lockPersonsAtVersions,
  lockPersonsByDistinctIds,
  updatePersons,
  type KnownProperties,
} from '../../persons/batch-store.js';
import type { Person } from '../../persons/store.js';
import { notePersonlessDistinctIds, personlessAmong, recordPersonOverrides } from '../../persons/overrides-store.js';
import { personUuidFromDistinctId } from '../../persons/person-uuid.js';
import type { PersonOverrideRow } from '../../events/outbox-rows.js';
import type { Properties } from '../core/index.js';
import type { PersonCache } from './person-cache.js';
import { isPostgres } from '../../platform/db/dialect.js';

type Db = Kysely<Schema>;

/** A person as one batch sees it: the stored row plus everything the batch has done to it so far. */
export interface PersonState extends Person {
  /** Created by this batch: `id` is a negative placeholder until write-back inserts the row. */
  isNew: boolean;
  /** Changed by this batch and still to be written. */
  dirty: boolean;
  /** The version the batch read (a stored person's write-back checks it still is; PostgreSQL). */
  storedVersion: number;
  /** Folded into another person by this batch (the row is deleted at write-back). */
  mergedInto?: PersonState;
}

export type PersonChanges = Partial<Pick<Person, 'properties' | 'isIdentified' | 'version' | 'createdAt'>>;

const key = (teamId: number, distinctId: string) => `${teamId}\u0000${distinctId}`;

/** The person a state stands for now: merges within the batch redirect to the surviving person. */
function alive(state: PersonState): PersonState {
  let current = state;
  while (current.mergedInto) current = current.mergedInto;
  return current;
}

/**
 * The worker's in-memory unit of work for persons. A batch loads the persons of all its distinct
 * ids in one query per team, applies every event to these objects in arrival order (merges
 * included), and writes the net result back once, inside the batch's transaction. Per event
 * that replaces three to six queries with none; per batch it costs a handful of multi-row
 * statements. The result is the same as writing each change as it happens: reads go through the
 * same objects the writes changed, and on PostgreSQL, where other workers' batches may write the
 * same persons meanwhile, the write-back only writes persons still as the batch read them (else
 * the batch is retried: lockMergedPersons, updatePersons).
 */
export class PersonUnitOfWork {
  /**
   * Per team, distinct id → its person (null: known to have none). Merged-away persons resolve via
   * `alive`. Nested maps: a `team:id` key string per lookup was a visible cost per event.
   */
  private readonly byDistinctId = new Map<number, Map<string, PersonState | null>>();
  /** Stored persons by id, so two distinct ids of one person share one object. */
  private readonly stored = new Map<number, PersonState>();
  private readonly created: PersonState[] = [];
  /** Stored persons folded into another, in merge order. */
  private readonly mergedAway: PersonState[] = [];
  /** Every person folded into another, stored or new (events of this batch may name a new one). */
  private readonly mergedSources: PersonState[] = [];
  private readonly addedIds = new Map<string, { teamId: number; distinctId: string; person: PersonState }>();
  /** Distinct ids whose events this batch stored without a person, per team. */
  private readonly personless = new Map<number, Set<string>>();
  private nextPlaceholderId = -1;

  private readonly known: KnownProperties | undefined;

  /**
   * `lockOnRead`: read every person locked (lockPersonsByDistinctIds), taking only properties by
   * version from the cache; for a batch that other workers' batches may race (worker.ts).
   */
  constructor(
    private readonly db: Db,
    private readonly cache?: PersonCache,
    private readonly lockOnRead = false,
  ) {
    this.known = cache && ((id, version) => cache.properties(id, version));
  }

  /**
   * Loads the persons of these distinct ids, skipping the ones already known to the batch; those
   * the worker's cache holds (see PersonCache) are taken from it, the others read in one query.
   */
  async preload(teamId: number, distinctIds: Iterable<string>): Promise<void> {
    const team = this.team(teamId);
    const missing: string[] = [];
    for (const distinctId of new Set(distinctIds)) {
      if (team.has(distinctId)) continue;
      const cached = this.lockOnRead ? undefined : this.cache?.owner(teamId, distinctId);
      if (cached) team.set(distinctId, this.adopt(cached));
      else missing.push(distinctId);
    }
    if (missing.length === 0) return;
    const found = this.lockOnRead
      ? await lockPersonsByDistinctIds(this.db, teamId, missing, this.known)
      : await getPersonsByDistinctIds(this.db, teamId, missing, this.known);
    for (const distinctId of missing) {
      const row = found.get(distinctId);
      team.set(distinctId, row ? this.adopt(row) : null);
    }
  }

  private team(teamId: number): Map<string, PersonState | null> {
    let team = this.byDistinctId.get(teamId);
    if (!team) this.byDistinctId.set(teamId, (team = new Map()));
    return team;
  }

  /** One object per stored person: a row read later must not shadow changes made in memory. */
  private adopt(row: Person): PersonState {
    const known = this.stored.get(row.id);
    if (known) return alive(known);
    const state: PersonState = {
      id: row.id,
      uuid: row.uuid,
      teamId: row.teamId,
      properties: row.properties,
      isIdentified: row.isIdentified,
      createdAt: row.createdAt,
      version: row.version,
      storedVersion: row.version,
      isNew: false,
      dirty: false,
    };
    this.stored.set(row.id, state);
    return state;
  }

  /** The person owning a distinct id now (loaded on first use when the preload missed it). */
  async get(teamId: number, distinctId: string): Promise<PersonState | undefined> {
    const loaded = this.loaded(teamId, distinctId);
    if (loaded !== undefined) return loaded ?? undefined;
    await this.preload(teamId, [distinctId]);
    const state = this.byDistinctId.get(teamId)?.get(distinctId);
    return state ? alive(state) : undefined;
  }

  /**
   * Without waiting: the person owning a distinct id when the batch has loaded it (null: it has
   * none), undefined when it is not loaded yet (then use `get`). The batch's preload loads almost
   * every id, so the pipeline rarely needs a promise per lookup.
   */
  loaded(teamId: number, distinctId: string): PersonState | null | undefined {
    const state = this.byDistinctId.get(teamId)?.get(distinctId);
    return state ? alive(state) : state;
  }

  create(
    person: { uuid: string; teamId: number; properties: Properties; isIdentified: boolean; createdAt: string },
    distinctIds: string[],
  ): PersonState {
    const state: PersonState = { ...person, id: this.nextPlaceholderId--, version: 0, storedVersion: 0, isNew: true, dirty: true };
    this.created.push(state);
    for (const distinctId of distinctIds) this.addDistinctId(person.teamId, distinctId, state);
    return state;
  }

  /** An event of this distinct id was stored without a person (attributed to the uuid derived from the id). */
  notePersonless(teamId: number, distinctId: string): void {
    let ids = this.personless.get(teamId);
    if (!ids) this.personless.set(teamId, (ids = new Set()));
    ids.add(distinctId);
  }

  /** Gives a distinct id that has no person yet to `person`. */
  addDistinctId(teamId: number, distinctId: string, person: PersonState): void {
    this.team(teamId).set(distinctId, person);
    this.addedIds.set(key(teamId, distinctId), { teamId, distinctId, person });
  }

  update(person: PersonState, changes: PersonChanges): void {
    Object.assign(person, changes);
    person.dirty = true;
  }

  /** `source` is folded into `target`: all its distinct ids now resolve to `target`. */
  merge(source: PersonState, target: PersonState): void {
    source.mergedInto = target;
    if (!source.isNew) this.mergedAway.push(source);
    this.mergedSources.push(source);
  }

  /**
   * Writes the batch's net changes: new persons (those still alive), distinct ids of merged-away
   * persons moved to the survivors, the merged-away rows deleted, new distinct ids, then the
   * changed stored persons, each step in multi-row statements. Returns the person overrides the
   * merges left, for ClickHouse (events keep the person they were stored with).
   */
  async flush(): Promise<PersonOverrideRow[]> {
    await this.lockMergedPersons();
    const inserted = this.created.filter((p) => !p.mergedInto);
    if (inserted.length > 0) {
      const ids = await insertPersons(this.db, inserted);
      for (const person of inserted) person.id = ids.get(person.uuid)!;
    }
    // Each to its final survivor: A merged into B and B into C sends A's ids straight to C.
    await foldPersons(
      this.db,
      this.mergedAway.map((source) => ({ fromPersonId: source.id, toPersonId: alive(source).id })),
    );
    if (this.addedIds.size > 0) {
      await insertDistinctIds(
        this.db,
        [...this.addedIds.values()].map((a) => ({ teamId: a.teamId, distinctId: a.distinctId, personId: alive(a.person).id })),
      );
    }
    await updatePersons(
      this.db,
      [...this.stored.values()].filter((p) => p.dirty && !p.mergedInto),
    );
    await notePersonlessDistinctIds(this.db, this.personless);
    return recordPersonOverrides(this.db, [
      ...this.mergedSources.map((source) => ({ teamId: source.teamId, oldPersonId: source.uuid, overridePersonId: alive(source).uuid })),
      ...(await this.personlessJoined()),
    ]);
  }

  /**
   * On PostgreSQL, where other workers' batches may write the same persons at once (a merge's two
   * distinct ids can sit in two workers' partitions): when this batch merges persons or gives
   * distinct ids to stored ones, the stored persons it writes are locked first, in ascending id
   * order, and must still be as read (lockPersonsAtVersions). Plain property updates need no lock:
   * their UPDATE checks the version itself (updatePersons). No extra statement for a batch
   * without merges; none at all on SQLite (one writer).
   */
  private async lockMergedPersons(): Promise<void> {
    if (!isPostgres(this.db)) return;
    const receiving = new Set<PersonState>();
    for (const added of this.addedIds.values()) {
      const owner = alive(added.person);
      if (!owner.isNew) receiving.add(owner);
    }
    if (this.mergedAway.length === 0 && receiving.size === 0) return;
    const locked = [...this.stored.values()].filter((p) => p.dirty || p.mergedInto || receiving.has(p));
    await lockPersonsAtVersions(this.db, locked);
  }

  /**
   * Distinct ids that sent events without a person and got one in this batch: their earlier
   * events, of the uuid derived from the id, count for that person from now on.
   */
  private async personlessJoined(): Promise<PersonOverrideRow[]> {
    const byTeam = new Map<number, Array<{ distinctId: string; person: PersonState }>>();
    for (const added of this.addedIds.values()) {
      let list = byTeam.get(added.teamId);
      if (!list) byTeam.set(added.teamId, (list = []));
      list.push(added);
    }
    const rows: PersonOverrideRow[] = [];
    for (const [teamId, added] of byTeam) {
      const personless = await personlessAmong(
        this.db,
        teamId,
        added.map((a) => a.distinctId),
      );
      for (const { distinctId, person } of added) {
        if (!personless.has(distinctId)) continue;
        rows.push({ teamId, oldPersonId: personUuidFromDistinctId(teamId, distinctId), overridePersonId: alive(person).uuid });
      }
    }
    return rows;
  }

  /**
   * After the batch's transaction committed: what it read and wrote is now the stored state, for
   * the next batches' cache (after `flush`, new persons have their real ids). A person that is not
   * dirty still has the version and properties the batch read (only `update` changes them).
   * Merged-away persons are forgotten, so their distinct ids the batch did not see are read again.
   */
  committed(): void {
    const cache = this.cache;
    if (!cache) return;
    for (const person of this.stored.values()) {
      if (person.mergedInto) cache.forget(person.id);
      else cache.remember(person);
    }
    for (const person of this.created) if (!person.mergedInto && person.id > 0) cache.remember(person);
    for (const [teamId, owners] of this.byDistinctId) {
      for (const [distinctId, state] of owners) {
        const owner = state && alive(state);
        if (owner && owner.id > 0) cache.rememberOwner(teamId, distinctId, owner.id);
      }
    }
  }
}
