import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import type { PersonOverrideRow } from '../events/analytics-outbox.js';

type Db = Kysely<Schema>;

const ROWS_PER_STATEMENT = 500;

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
    const olds = [...target.keys()];
    for (let i = 0; i < olds.length; i += ROWS_PER_STATEMENT) {
      const earlier = await db
        .selectFrom('person_overrides')
        .select(['old_person_id', 'override_person_id'])
        .where('team_id', '=', teamId)
        .where('override_person_id', 'in', olds.slice(i, i + ROWS_PER_STATEMENT))
        .execute();
      for (const row of earlier) {
        if (!target.has(row.old_person_id)) target.set(row.old_person_id, target.get(row.override_person_id)!);
      }
    }
    for (const [old, override] of target) written.set(`${teamId}\u0000${old}`, { teamId, oldPersonId: old, overridePersonId: override });
  }
  const rows = [...written.values()];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('person_overrides')
      .values(
        rows
          .slice(i, i + ROWS_PER_STATEMENT)
          .map((r) => ({ team_id: r.teamId, old_person_id: r.oldPersonId, override_person_id: r.overridePersonId })),
      )
      .onConflict((oc) =>
        oc.columns(['team_id', 'old_person_id']).doUpdateSet((eb) => ({ override_person_id: eb.ref('excluded.override_person_id') })),
      )
      .execute();
  }
  return rows;
}
