import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';

type Db = Kysely<Schema>;

/**
 * The outbox between a worker batch's transaction and ClickHouse. A batch commits its event rows
 * as one outbox row (with the queue deletion and the persons), then the worker copies the row to
 * ClickHouse with the row's token and deletes it. A crash after the copy and before the deletion
 * copies it again on the next start: ClickHouse drops an insert whose token it has seen, so an
 * acknowledged event is stored exactly once.
 */

/** One event as ClickHouse's `events` table takes it, a line of JSONEachRow. */
export function eventRow(
  teamId: number,
  uuid: string,
  event: string,
  distinctId: string,
  personId: string,
  propertiesJson: string,
  timestamp: string,
  createdAt: string,
  sessionId: string | null,
  elementsChain: string | null,
): string {
  // The properties are JSON text already: spliced in as a JSON string without parsing them again.
  return `{"team_id":${teamId},"uuid":${JSON.stringify(uuid)},"event":${JSON.stringify(event)},"distinct_id":${JSON.stringify(
    distinctId,
  )},"person_id":${JSON.stringify(personId)},"properties":${JSON.stringify(propertiesJson)},"timestamp":${JSON.stringify(
    timestamp,
  )},"created_at":${JSON.stringify(createdAt)},"session_id":${JSON.stringify(sessionId ?? '')},"elements_chain":${JSON.stringify(
    elementsChain ?? '',
  )}}`;
}

export interface PersonOverrideRow {
  teamId: number;
  oldPersonId: string;
  overridePersonId: string;
}

/** Queues a batch's rows for ClickHouse, in the batch's transaction (nothing when there are none). */
export async function addToOutbox(db: Db, eventLines: string[], overrides: PersonOverrideRow[]): Promise<void> {
  if (eventLines.length === 0 && overrides.length === 0) return;
  await db
    .insertInto('analytics_outbox')
    .values({
      token: randomUUID(),
      events: eventLines.join('\n'),
      person_overrides: overrides
        .map((o) => JSON.stringify({ team_id: o.teamId, old_person_id: o.oldPersonId, override_person_id: o.overridePersonId }))
        .join('\n'),
      created_at: new Date().toISOString(),
    })
    .execute();
}

/** Outbox rows copied per round trip to the SQL database. */
const ROWS_PER_READ = 20;

/**
 * Copies every outbox row to ClickHouse, oldest first, deleting each once copied; returns how many
 * rows it copied. Only the ingestion worker holding the lease calls it.
 */
export async function flushOutbox(db: Db, engine: AnalyticsEngine): Promise<number> {
  let copied = 0;
  for (;;) {
    const rows = await db.selectFrom('analytics_outbox').selectAll().orderBy('id').limit(ROWS_PER_READ).execute();
    if (rows.length === 0) return copied;
    for (const row of rows) {
      const token = `outbox-${row.token}`;
      await engine.insert('events', row.events, { deduplicationToken: token });
      if (row.person_overrides) {
        // A later merge's row replaces an earlier one's: the outbox id orders them.
        const version = Number(row.id);
        const lines = row.person_overrides
          .split('\n')
          .map((line) => `${line.slice(0, -1)},"version":${version}}`)
          .join('\n');
        await engine.insert('person_overrides', lines, { deduplicationToken: token });
      }
      await db.deleteFrom('analytics_outbox').where('id', '=', row.id).execute();
      copied++;
    }
  }
}

/** Whether rows wait to be copied to ClickHouse. */
export async function outboxPending(db: Db): Promise<number> {
  const row = await db
    .selectFrom('analytics_outbox')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
