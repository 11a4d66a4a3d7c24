import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { nextTurn } from '../platform/next-turn.js';

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

/** A copy's token marks its rows (see copyOutboxGroup); a fresh row's token is a bare uuid. */
const GROUP = 'group:';
/** A copy takes rows up to about this much event text (a posthog-js event takes 1-3 KB: 10,000-30,000 events). */
const GROUP_BYTES = 32 * 1024 * 1024;
/** Rows looked at per copy (a row is a batch of up to 1000 events). */
const GROUP_ROWS = 200;
/** Outbox rows read or deleted per statement (a row is up to 1000 events, a few MB). */
const ROWS_PER_STATEMENT = 2;

/**
 * Copies the oldest outbox rows to ClickHouse as one insert, and deletes them; returns how many
 * rows it copied (0: the outbox is empty). ClickHouse pays some 30 ms of CPU per insert into
 * `events` whatever its size (a part, the sessions view's part), so one insert for many batches
 * costs a fraction of one per batch (docs/benchmarks.md).
 *
 * The rows go together under one token, written onto them before the insert: a copy repeated
 * after a crash, or by another worker, takes exactly the same rows under the same token, so
 * ClickHouse drops the repeat. Only rows no copy has claimed yet are claimed, so two copies never
 * claim the same row under different tokens.
 */
export async function copyOutboxGroup(db: Db, engine: AnalyticsEngine): Promise<number> {
  const head = await db.selectFrom('analytics_outbox').select(['id', 'token']).orderBy('id').limit(1).executeTakeFirst();
  if (!head) return 0;
  let token = head.token;
  if (!token.startsWith(GROUP)) {
    const candidates = await db
      .selectFrom('analytics_outbox')
      .select(['id', 'token', (eb) => eb.fn<number>('length', ['events']).as('bytes')])
      .where('id', '>=', head.id)
      .orderBy('id')
      .limit(GROUP_ROWS)
      .execute();
    let last = head.id;
    let bytes = 0;
    for (const row of candidates) {
      if (row.token.startsWith(GROUP) || (bytes > 0 && bytes + Number(row.bytes) > GROUP_BYTES)) break;
      bytes += Number(row.bytes);
      last = row.id;
    }
    token = `${GROUP}${randomUUID()}`;
    await db
      .updateTable('analytics_outbox')
      .set({ token })
      .where('id', '>=', head.id)
      .where('id', '<=', last)
      .where('token', 'not like', `${GROUP}%`)
      .execute();
  }
  const ids = (await db.selectFrom('analytics_outbox').select('id').where('token', '=', token).orderBy('id').execute()).map((r) => r.id);
  // Claimed by another copy meanwhile: the next call takes that copy's rows.
  if (ids.length === 0) return copyOutboxGroup(db, engine);
  // A few rows per statement, a turn of the event loop between: on SQLite each read or delete
  // holds the thread, and requests wait meanwhile.
  const events: string[] = [];
  const overrides: string[] = [];
  for (let i = 0; i < ids.length; i += ROWS_PER_STATEMENT) {
    const rows = await db
      .selectFrom('analytics_outbox')
      .select(['id', 'events', 'person_overrides'])
      .where('id', 'in', ids.slice(i, i + ROWS_PER_STATEMENT))
      .orderBy('id')
      .execute();
    for (const row of rows) {
      if (row.events) events.push(row.events);
      // A later merge's row replaces an earlier one's: the outbox id orders them.
      if (row.person_overrides)
        for (const line of row.person_overrides.split('\n')) overrides.push(`${line.slice(0, -1)},"version":${Number(row.id)}}`);
    }
    await nextTurn();
  }
  if (events.length > 0) await engine.insert('events', events.join('\n'), { deduplicationToken: token });
  if (overrides.length > 0) await engine.insert('person_overrides', overrides.join('\n'), { deduplicationToken: token });
  // A crash between two deletes leaves part of the rows: copied again under the same token,
  // ClickHouse drops them as the repeat they are.
  for (let i = 0; i < ids.length; i += ROWS_PER_STATEMENT) {
    await db
      .deleteFrom('analytics_outbox')
      .where('id', 'in', ids.slice(i, i + ROWS_PER_STATEMENT))
      .execute();
    await nextTurn();
  }
  return ids.length;
}

/** Copies every outbox row to ClickHouse (copyOutboxGroup until none is left); returns how many rows it copied. */
export async function flushOutbox(db: Db, engine: AnalyticsEngine): Promise<number> {
  let copied = 0;
  for (let rows; (rows = await copyOutboxGroup(db, engine)) > 0;) copied += rows;
  return copied;
}

/** Whether rows committed at or before `time` still wait to be copied (a deletion waits for them). */
export async function outboxHoldsRowsFrom(db: Db, time: string): Promise<boolean> {
  const row = await db.selectFrom('analytics_outbox').select('id').where('created_at', '<=', time).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Whether rows wait to be copied to ClickHouse. */
export async function outboxPending(db: Db): Promise<number> {
  const row = await db
    .selectFrom('analytics_outbox')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
