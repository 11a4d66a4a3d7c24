/**
 * The background runner's side of `delete_recordings` (src/deletions/): a person's recordings go a
 * bounded number of chunks per batch (a recording larger than a batch whole, in one transaction),
 * only those of its distinct ids begun before the deletion; and a kind of deletion the runner does
 * not know is a failure, never taken for an environment's deletion.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/platform/db/values.js';
import { DeletionRunner } from '../../src/deletions/runner.js';
import { finishDeletions, listPendingDeletions, queueDeletion } from '../../src/deletions/store.js';
import { insertForeignDeletion } from '../helpers/deletions.js';
import { useTestServer } from '../helpers/server.js';

// No inline worker, so no runner of the server's own: the tests drive theirs.
const server = useTestServer({ INGESTION_WORKER: 'off' });
const log = pino({ level: 'silent' });
const database = () => server.running.ctx.database;

/** A stored recording of `chunks` chunks, first seen at `createdAt`. */
async function storeRecording(teamId: number, sessionId: string, distinctId: string, chunks: number, createdAt: string) {
  const { db } = database();
  await db
    .insertInto('session_recordings')
    .values({
      team_id: teamId,
      session_id: sessionId,
      distinct_id: distinctId,
      start_time: createdAt,
      end_time: createdAt,
      duration: 0,
      metadata: toJson({}),
      chunk_count: chunks,
      created_at: createdAt,
      last_ingested_at: createdAt,
    })
    .execute();
  await db
    .insertInto('recording_chunks')
    .values(
      Array.from({ length: chunks }, (_, seq) => ({
        team_id: teamId,
        session_id: sessionId,
        seq,
        window_id: 'w',
        first_timestamp: seq,
        last_timestamp: seq,
        event_count: 1,
        data: Buffer.from([seq]),
      })),
    )
    .execute();
}

/** Each recording of the team left, with its stored chunks. */
async function recordingsLeft(teamId: number): Promise<Record<string, number>> {
  const { db } = database();
  const left: Record<string, number> = {};
  for (const row of await db.selectFrom('session_recordings').select('session_id').where('team_id', '=', teamId).execute())
    left[row.session_id] = 0;
  for (const row of await db.selectFrom('recording_chunks').select('session_id').where('team_id', '=', teamId).execute()) {
    left[row.session_id] = (left[row.session_id] ?? 0) + 1;
  }
  return left;
}

describe("background deletion of a person's recordings", () => {
  it('goes a few chunks per batch, a large recording whole, and leaves later and other recordings', async () => {
    const teamId = server.bootstrap.team.id;
    const before = '2025-01-01T00:00:00.000Z';
    await storeRecording(teamId, 'a-large', 'rec-p1', 5, before);
    await storeRecording(teamId, 'b-small', 'rec-p2', 1, before);
    await storeRecording(teamId, 'c-small', 'rec-p1', 2, before);
    await storeRecording(teamId, 'd-other', 'rec-someone-else', 2, before);
    // Begun after the deletion was queued: a distinct id used again, not the deleted person's.
    await storeRecording(teamId, 'e-later', 'rec-p2', 1, '2999-01-01T00:00:00.000Z');
    await queueDeletion(database().db, { teamId, kind: 'person_recordings', target: 'deleted-person', distinctIds: ['rec-p1', 'rec-p2'] });

    const runner = new DeletionRunner(database(), server.running.ctx.analytics, log, { batchSize: 3 });
    await runner.step();
    const afterFirstBatch = await recordingsLeft(teamId);
    await runner.drain();
    await runner.stop();

    expect({
      afterFirstBatch,
      afterAll: await recordingsLeft(teamId),
      pending: (await listPendingDeletions(database().db)).length,
    }).toEqual({
      afterFirstBatch: { 'b-small': 1, 'c-small': 2, 'd-other': 2, 'e-later': 1 },
      afterAll: { 'd-other': 2, 'e-later': 1 },
      pending: 0,
    });
  });

  it('counts a deletion of a kind it does not know as a failed batch, and deletes nothing', async () => {
    const teamId = server.bootstrap.team.id;
    await storeRecording(teamId, 'f-kept', 'rec-p3', 1, '2025-01-01T00:00:00.000Z');
    const { db } = database();
    const id = await insertForeignDeletion(db, teamId, 'from-a-newer-version', null);
    try {
      const runner = new DeletionRunner(database(), server.running.ctx.analytics, log, { batchSize: 3 });
      await runner.step();
      await runner.stop();
      const [pending] = await listPendingDeletions(db);
      expect({ kept: (await recordingsLeft(teamId))['f-kept'], attempts: Number(pending?.attempts) }).toEqual({ kept: 1, attempts: 1 });
    } finally {
      await finishDeletions(db, [id]);
    }
  });
});
