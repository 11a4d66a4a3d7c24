import type { Kysely } from 'kysely';
import type { Schema } from '../../src/platform/db/schema.js';

/**
 * A background deletion's row as another version of Hoglet writes it (no outbox mark, any kind),
 * where queueDeletion would write this version's; returns its id.
 */
export async function insertForeignDeletion(db: Kysely<Schema>, teamId: number, kind: string, target: string | null): Promise<number> {
  const row = await db
    .insertInto('background_deletions')
    .values({
      owner_team_id: teamId,
      kind,
      target,
      cursor_timestamp: null,
      cursor_uuid: null,
      created_at: new Date().toISOString(),
      outbox_mark: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
