import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import type { PersonOverrideRow } from '../events/outbox-rows.js';
import { InListQuery } from '../platform/db/multi-row-insert.js';
import { chunks } from '../lib/chunks.js';

type Db = Kysely<Schema>;

const ROWS_PER_STATEMENT = 500;

/** The team's overrides that point at these persons (persons merged into them). */
const OVERRIDES_TO = new InListQuery(
  (db: Db, [teamId]: [number], uuids: string[]) =>
    db
      .selectFrom('person_overrides')
      .select(['old_person_id', 'override_person_id'])
      .where('team_id', '=', teamId)
      .where('override_person_id', 'in', uuids),
  ROWS_PER_STATEMENT,
);

const PERSONLESS = new InListQuery(
  (db: Db, [teamId]: [number], ids: string[]) =>
    db.selectFrom('personless_distinct_ids').select('distinct_id').where('team_id', '=', teamId).where('distinct_id', 'in', ids),
  ROWS_PER_STATEMENT,
);

/** The persons merged into these (they live on in them), as the overrides record them. */
export async function overridesTo(
  db: Db,
  teamId: number,
  uuids: string[],
): Promise<Array<{ old_person_id: string; override_person_id: string }>> {
  return OVERRIDES_TO.execute(db, [teamId], uuids);
}

/**
 * Records merges (old person → the person it lives on in) in the caller's transaction, keeping
 * every override pointing at a person that still exists: persons merged into `old` earlier now
 * point at the new target too. Returns every override row written, for ClickHouse.
 */
export async function recordPersonOverrides(db: Db, merges: PersonOverrideRow[]): Promise<PersonOverrideRow[]> {
  if (merges.length === 0) return [];
  const written = new Map<string, PersonOverrideRow>();
  const byTeam = new Map<number, PersonOverrideRow[]>();
  for (const merge of merges) {
    if (merge.oldPersonId === merge.overridePersonId) continue;
    let list = byTeam.get(merge.teamId);
    if (!list) byTeam.set(merge.teamId, (list = []));
    list.push(merge);
  }
  for (const [teamId, list] of byTeam) {
    const target = new Map(list.map((m) => [m.oldPersonId, m.overridePersonId]));
    for (const row of await overridesTo(db, teamId, [...target.keys()])) {
      if (!target.has(row.old_person_id)) target.set(row.old_person_id, target.get(row.override_person_id)!);
    }
    for (const [old, override] of target) written.set(`${teamId}\u0000${old}`, { teamId, oldPersonId: old, overridePersonId: override });
  }
  // In key order: concurrent batches upserting the same overrides wait for each other, not deadlock.
  const rows = [...written.values()].sort(
    (a, b) => a.teamId - b.teamId || (a.oldPersonId < b.oldPersonId ? -1 : a.oldPersonId > b.oldPersonId ? 1 : 0),
  );
  for (const chunk of chunks(rows, ROWS_PER_STATEMENT)) {
    await db
      .insertInto('person_overrides')
      .values(chunk.map((r) => ({ team_id: r.teamId, old_person_id: r.oldPersonId, override_person_id: r.overridePersonId })))
      .onConflict((oc) =>
        oc.columns(['team_id', 'old_person_id']).doUpdateSet((eb) => ({ override_person_id: eb.ref('excluded.override_person_id') })),
      )
      .execute();
  }
  return rows;
}

/** Records distinct ids whose events were stored without a person (already recorded ones are kept). */
export async function notePersonlessDistinctIds(db: Db, byTeam: Map<number, Set<string>>): Promise<void> {
  for (const [teamId, ids] of [...byTeam].sort(([a], [b]) => a - b)) {
    // In key order, as recordPersonOverrides: concurrent batches wait for each other, not deadlock.
    for (const chunk of chunks([...ids].sort(), ROWS_PER_STATEMENT)) {
      await db
        .insertInto('personless_distinct_ids')
        .values(chunk.map((distinct_id) => ({ team_id: teamId, distinct_id })))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }
}

/** Which of these distinct ids ever sent events without a person. */
export async function personlessAmong(db: Db, teamId: number, distinctIds: string[]): Promise<Set<string>> {
  return new Set((await PERSONLESS.execute(db, [teamId], distinctIds)).map((row) => row.distinct_id));
}

/**
 * Persons a split names after a distinct id (persons/actions.ts) must not inherit an override of
 * that uuid (the id's personless events, overridden when it joined the person it now leaves):
 * each gets an override to itself, in SQL and, returned, for ClickHouse.
 */
export async function resetPersonOverrides(db: Db, teamId: number, personUuids: string[]): Promise<PersonOverrideRow[]> {
  const rows: PersonOverrideRow[] = [];
  for (const chunk of chunks(personUuids, ROWS_PER_STATEMENT)) {
    const stale = await db
      .selectFrom('person_overrides')
      .select('old_person_id')
      .where('team_id', '=', teamId)
      .where('old_person_id', 'in', chunk)
      .execute();
    if (stale.length === 0) continue;
    await db
      .deleteFrom('person_overrides')
      .where('team_id', '=', teamId)
      .where(
        'old_person_id',
        'in',
        stale.map((r) => r.old_person_id),
      )
      .execute();
    for (const row of stale) rows.push({ teamId, oldPersonId: row.old_person_id, overridePersonId: row.old_person_id });
  }
  return rows;
}
