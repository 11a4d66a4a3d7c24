/**
 * The status of persons' event deletions (PostHog's AsyncDeletion rows of type Person, listed by
 * the persons API's `deletion_status`): pending from the person's deletion with `delete_events`
 * until the background walk carrying it is done, then completed with the time it was.
 */
import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/values.js';
import { chunks } from '../lib/chunks.js';

type Db = Kysely<Schema>;

/**
 * A person's events are queued for deletion by the background deletion `deletionId` (in the
 * caller's transaction). A person asked for again is pending again, carried by the newer deletion:
 * Hoglet deletes the events of every request (PostHog keeps the first row and its status).
 */
export async function notePersonEventDeletion(db: Db, teamId: number, personUuid: string, deletionId: number): Promise<void> {
  await db
    .insertInto('person_event_deletions')
    .values({ team_id: teamId, person_uuid: personUuid, deletion_id: deletionId, created_at: nowIso(), verified_at: null })
    .onConflict((oc) =>
      oc.columns(['team_id', 'person_uuid']).doUpdateSet({ deletion_id: deletionId, created_at: nowIso(), verified_at: null }),
    )
    .execute();
}

/** These background deletions are done: what they carried is verified now. */
export async function markPersonEventDeletionsVerified(db: Db, deletionIds: number[]): Promise<void> {
  for (const chunk of chunks(deletionIds, 500)) {
    await db
      .updateTable('person_event_deletions')
      .set({ verified_at: nowIso(), deletion_id: null })
      .where('deletion_id', 'in', chunk)
      .execute();
  }
}

export type DeletionStatusFilter = 'pending' | 'completed' | 'all';

export interface PersonEventDeletionRow {
  person_uuid: string;
  created_at: string;
  verified_at: string | null;
}

/** A page of the environment's person-event deletions, newest first, and how many there are in all. */
export async function listPersonEventDeletions(
  db: Db,
  teamId: number,
  filter: { status: DeletionStatusFilter; personUuid: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: PersonEventDeletionRow[] }> {
  let query = db.selectFrom('person_event_deletions').where('team_id', '=', teamId);
  if (filter.status === 'pending') query = query.where('verified_at', 'is', null);
  if (filter.status === 'completed') query = query.where('verified_at', 'is not', null);
  if (filter.personUuid !== undefined) query = query.where('person_uuid', '=', filter.personUuid);
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query
    .select(['person_uuid', 'created_at', 'verified_at'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(total?.n ?? 0), rows };
}
