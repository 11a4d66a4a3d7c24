/**
 * Whose an event is, for counting unique users: the person its distinct id belongs to now.
 *
 * Events keep the person they were processed with, but persons merge later (`$identify` after
 * anonymous browsing, `$create_alias`, `$merge_dangerously`), and personless events get a person
 * only when their distinct id is identified. PostHog counts them as the merged person (ClickHouse
 * joins events to the current distinct-id mapping, or applies person overrides), so a visitor who
 * signs up is one user, not two. Resolved a page of events at a time, each distinct id once.
 */
import type { Kysely } from 'kysely';
import { InListQuery } from '../platform/db/multi-row-insert.js';
import type { Schema } from '../platform/db/schema.js';

const OWNERS = new InListQuery(
  (db: Kysely<Schema>, [teamId]: [number], distinctIds: string[]) =>
    db
      .selectFrom('person_distinct_ids as d')
      .innerJoin('persons as p', 'p.id', 'd.person_id')
      .select(['d.distinct_id', 'p.uuid'])
      .where('d.team_id', '=', teamId)
      .where('d.distinct_id', 'in', distinctIds),
  500,
);

export class EventOwners {
  /** Distinct id → the uuid of its person now, or null when it has none. */
  private readonly owners = new Map<string, string | null>();

  constructor(
    private readonly db: Kysely<Schema>,
    private readonly teamId: number,
  ) {}

  /** Looks up the distinct ids not seen before (call before `ownerOf` for a page of events). */
  async resolve(distinctIds: Iterable<string>): Promise<void> {
    const unknown = new Set<string>();
    for (const id of distinctIds) if (!this.owners.has(id)) unknown.add(id);
    if (unknown.size === 0) return;
    for (const id of unknown) this.owners.set(id, null);
    for (const row of await OWNERS.execute(this.db, [this.teamId], [...unknown])) this.owners.set(row.distinct_id, row.uuid);
  }

  /**
   * The uuid to count the event under: its distinct id's person now; else the person it was
   * processed with (a person deleted since, or a personless event's own uuid); else null.
   */
  ownerOf(distinctId: string, processedWith: string | null): string | null {
    return this.owners.get(distinctId) ?? processedWith;
  }
}
