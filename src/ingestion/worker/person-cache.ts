import type { Person } from '../../persons/store.js';
import type { Properties } from '../core/index.js';

/**
 * What the worker keeps of persons between batches, so that a batch need not read again the
 * persons the batches before it read or wrote (on a stream of thousands of visitors, that read was
 * a sixth of the worker's time):
 * - persons by id, with the version they were read or written at;
 * - which person owns a distinct id.
 *
 * Only committed batches fill it (`PersonUnitOfWork.committed`). It is sound because, while the
 * worker holds its lease, nothing else changes these facts except by deleting:
 * - every change of a person's properties, flags or creation time is a write by the worker, which
 *   raises its version and reaches the cache when its batch commits;
 * - distinct ids move between persons only in the worker's merges, whose merged-away persons the
 *   cache forgets (their other distinct ids then find no person here and are read again);
 * - other writers only insert rows the cache has never seen or delete. Deleting a person
 *   (`deletePersonRow`) raises the `person_deletions` counter in its transaction, and each batch's
 *   transaction compares that counter first (`checkDeletions`, from worker.ts's
 *   inFencedTransaction): any change empties the cache. An environment's
 *   persons are not counted: its id is never used again, so nothing asks for them.
 * The worker empties it too whenever it takes the lease (another worker may have written meanwhile)
 * and after any failed batch (a failed commit may have committed). While other workers hold some
 * of the partitions, it keeps only persons by version (forgetOwners before each batch). Each batch's transaction first
 * checks that the worker still holds the lease (worker.ts, inFencedTransaction): a round can
 * outlast the lease, and another worker take over in its middle.
 * "No person" is never kept: other writers may insert persons.
 */
export class PersonCache {
  private readonly persons = new Map<number, Person>();
  /** Per team, distinct id → person id (nested maps: no key string made per lookup). */
  private readonly owners = new Map<number, Map<string, number>>();
  private ownerTotal = 0;
  private deletionsSeen: number | undefined;

  constructor(private readonly limit = 50_000) {}

  /** The person's properties when it is kept at this version. */
  properties(personId: number, version: number): Properties | undefined {
    const person = this.persons.get(personId);
    return person && person.version === version ? person.properties : undefined;
  }

  /** The person owning a distinct id, when both are kept. */
  owner(teamId: number, distinctId: string): Person | undefined {
    const personId = this.owners.get(teamId)?.get(distinctId);
    return personId === undefined ? undefined : this.persons.get(personId);
  }

  /** Keeps a person as committed (a copy: the batch's own objects are not shared). Newest last. */
  remember(person: Person): void {
    this.persons.delete(person.id);
    this.persons.set(person.id, {
      id: person.id,
      uuid: person.uuid,
      teamId: person.teamId,
      properties: person.properties,
      isIdentified: person.isIdentified,
      createdAt: person.createdAt,
      version: person.version,
    });
    trim(this.persons, this.limit);
  }

  /**
   * An owner already kept is not moved to the newest place (that cost more than the occasional
   * read again of an owner dropped while still in use).
   */
  rememberOwner(teamId: number, distinctId: string, personId: number): void {
    let team = this.owners.get(teamId);
    if (!team) this.owners.set(teamId, (team = new Map()));
    const size = team.size;
    team.set(distinctId, personId);
    if (team.size === size) return;
    // Persons have a few distinct ids each, and an owner without its person is just a miss.
    if (++this.ownerTotal > this.limit * 2) this.trimOwners();
  }

  /** Drops the oldest tenth of the owners, team by team, oldest team first. */
  private trimOwners(): void {
    for (const [teamId, team] of this.owners) {
      for (const distinctId of team.keys()) {
        if (this.ownerTotal <= this.limit * 1.8) return;
        team.delete(distinctId);
        this.ownerTotal--;
      }
      if (team.size === 0) this.owners.delete(teamId);
    }
  }

  /** A person merged away: distinct ids that pointed to it now find nothing here. */
  forget(personId: number): void {
    this.persons.delete(personId);
  }

  /**
   * Drops which person owns which distinct id and keeps the persons by version: beside other
   * workers (another worker's merge may move a distinct id) owners kept may be stale, but a
   * person's properties at a version are the same for every worker, since each write raises the
   * version and, on PostgreSQL, writes only over the version it read (updatePersons).
   */
  forgetOwners(): void {
    this.owners.clear();
    this.ownerTotal = 0;
  }

  clear(): void {
    this.persons.clear();
    this.owners.clear();
    this.ownerTotal = 0;
  }

  /** The `person_deletions` counter as a batch read it: a change since the last batch empties the cache. */
  checkDeletions(value: number): void {
    if (this.deletionsSeen !== undefined && this.deletionsSeen !== value) this.clear();
    this.deletionsSeen = value;
  }

  get size(): number {
    return this.persons.size;
  }

  /** Distinct ids whose owner is kept. */
  get ownersKept(): number {
    return this.ownerTotal;
  }
}

/** Drops the oldest tenth once a map is over its limit. */
function trim<K, V>(map: Map<K, V>, limit: number): void {
  if (map.size <= limit) return;
  for (const key of map.keys()) {
    map.delete(key);
    if (map.size <= limit * 0.9) break;
  }
}
