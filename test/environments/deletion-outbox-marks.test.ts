/**
 * A background deletion waits for the events committed before it to leave the outbox for
 * ClickHouse (deleted before they arrive, they would stay), and for no later ones: it records the
 * outbox's highest id when queued and waits while a row at or below it is left, on no clock.
 * Real storage, both backends.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DeletionRunner } from '../../src/deletions/runner.js';
import { listPendingDeletions, queueDeletion } from '../../src/deletions/store.js';
import { addToOutbox, eventRow, type OutboxRow } from '../../src/events/outbox-rows.js';
import { outboxPending } from '../../src/events/outbox-copy.js';
import { insertForeignDeletion } from '../helpers/deletions.js';
import { useTestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';

// No inline worker, so no copier and no runner of the server's own: the tests copy and run.
const server = useTestServer({ INGESTION_WORKER: 'off' });
const database = () => server.running.ctx.database;
const analytics = () => server.running.ctx.analytics;
const newRunner = () => new DeletionRunner(database(), analytics(), pino({ level: 'silent' }), { batchSize: 5 });
const pendingDeletionsOf = async (teamId: number) =>
  (await listPendingDeletions(database().db)).filter((d) => Number(d.owner_team_id) === teamId);

/** Commits an outbox row of one event of the person (distinct id `w-1` unless given), stored before any deletion's time. */
async function commitEvent(teamId: number, person: string, distinctId = 'w-1'): Promise<OutboxRow> {
  const at = '2025-11-01T00:00:00.000Z';
  return (await addToOutbox(database().db, eventRow(teamId, randomUUID(), 'e', distinctId, person, '{"n":0}', at, at, null, null), []))!;
}

/** The row's copy, as the worker makes it: its events into ClickHouse, then the row gone. */
async function copy(row: OutboxRow): Promise<void> {
  await analytics().insert('events', row.events);
  await database().db.deleteFrom('analytics_outbox').where('id', '=', row.id).execute();
}

/**
 * The runner waits, its `deletions` of the team still pending, until `arriving` (an event of the
 * team) is copied to ClickHouse (`meanwhile` runs before that), then deletes the team's events.
 */
async function waitsForThenDeletes(
  runner: DeletionRunner,
  teamId: number,
  deletions: number,
  arriving: OutboxRow,
  meanwhile?: () => Promise<void>,
): Promise<void> {
  expect(await runner.step()).toBe(false);
  expect(await pendingDeletionsOf(teamId)).toHaveLength(deletions);
  await meanwhile?.();
  await copy(arriving);
  expect(await storedEvents(analytics(), teamId)).toHaveLength(1);
  await runner.drain();
  expect(await pendingDeletionsOf(teamId)).toEqual([]);
  expect(await storedEvents(analytics(), teamId)).toEqual([]);
}

describe('a deletion and the outbox', () => {
  it('waits for the events committed before it, not for those committed after', async () => {
    const { db } = database();
    const teamId = 910_001;
    const doomed = randomUUID();
    const before = await commitEvent(teamId, doomed);
    await queueDeletion(db, { teamId, kind: 'person_events', target: doomed, distinctIds: ['w-1'] });
    const after = await commitEvent(teamId, doomed);
    const runner = newRunner();
    try {
      await waitsForThenDeletes(runner, teamId, 1, before);
      // Done while the row committed after it still waits.
      expect(await outboxPending(db)).toBe(1);
    } finally {
      await runner.stop();
      await db.deleteFrom('analytics_outbox').where('id', '=', after.id).execute();
    }
  });

  it('run together with later deletions, waits for the events committed before the latest of them', async () => {
    const { db } = database();
    const teamId = 910_003;
    const [first, second] = [randomUUID(), randomUUID()];
    await queueDeletion(db, { teamId, kind: 'person_events', target: first, distinctIds: ['w-a'] });
    // Committed after the first deletion, before the second: the group deletes it once it arrives.
    const between = await commitEvent(teamId, second, 'w-b');
    await queueDeletion(db, { teamId, kind: 'person_events', target: second, distinctIds: ['w-b'] });
    const runner = newRunner();
    try {
      await waitsForThenDeletes(runner, teamId, 2, between);
    } finally {
      await runner.stop();
    }
  });

  it('queued before marks (migration 030), takes the mark at its first look and keeps it', async () => {
    const { db } = database();
    const teamId = 910_002;
    const doomed = randomUUID();
    const before = await commitEvent(teamId, doomed);
    const id = await insertForeignDeletion(db, teamId, 'person_events', doomed);
    const runner = newRunner();
    let after: OutboxRow | undefined;
    try {
      await waitsForThenDeletes(runner, teamId, 1, before, async () => {
        const [pending] = await pendingDeletionsOf(teamId);
        expect(Number(pending?.id)).toBe(id);
        expect(Number(pending?.outbox_mark)).toBe(before.id);
        // A row committed since lies above the recorded mark: the deletion does not wait for it.
        after = await commitEvent(teamId, doomed);
      });
    } finally {
      await runner.stop();
      if (after) await db.deleteFrom('analytics_outbox').where('id', '=', after.id).execute();
    }
  });
});
