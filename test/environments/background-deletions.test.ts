/**
 * Deletions carried out in the background a batch at a time (src/deletions/): they finish
 * whatever the batch size, touch nothing else, and a runner that stops half-way (a restart) is
 * resumed by the next from where it got. Real storage, both backends; small batches so that every
 * walk crosses many of them, including runs of equal timestamps.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/platform/db/values.js';
import { DeletionRunner } from '../../src/deletions/runner.js';
import { sql } from 'kysely';
import { listPendingDeletions, MAX_DELETION_ATTEMPTS, queueDeletion } from '../../src/deletions/store.js';
import { teamOwnedTables } from '../../src/deletions/store.js';
import { BACKEND } from '../helpers/backend.js';
import { runHoglet } from '../helpers/process.js';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

// No inline worker, so no runner of the server's own: the tests drive theirs.
const server = useTestServer({ INGESTION_WORKER: 'off' });
const log = pino({ level: 'silent' });
const database = () => server.running.ctx.database;
const pendingDeletionsOf = async (db: Kysely<any>, teamId: number) =>
  (await listPendingDeletions(db)).filter((d) => Number(d.owner_team_id) === teamId);

async function insertEvents(teamId: number, personOf: (n: number) => string, count: number): Promise<void> {
  const rows = Array.from({ length: count }, (_, n) => {
    // Four events per instant: batches of 3 end inside runs of equal timestamps.
    const timestamp = new Date(Date.parse('2025-11-01T00:00:00Z') + Math.floor(n / 4) * 60_000).toISOString();
    return {
      team_id: teamId,
      uuid: randomUUID(),
      event: 'e',
      distinct_id: `d-${n}`,
      person_id: personOf(n),
      properties: toJson({ n }),
      timestamp,
      created_at: timestamp,
      session_id: null,
      elements_chain: null,
    };
  });
  await database().db.insertInto('events').values(rows).execute();
}

async function eventsOf(teamId: number): Promise<Array<{ person_id: string | null; n: number }>> {
  const rows = await database().db.selectFrom('events').select(['person_id', 'properties']).where('team_id', '=', teamId).execute();
  return rows.map((r) => ({
    person_id: r.person_id,
    n: (typeof r.properties === 'string' ? JSON.parse(r.properties) : r.properties).n as number,
  }));
}

describe('background deletions', () => {
  it("delete a person's events across many pages, resumed after a stop half-way", async () => {
    const teamId = server.bootstrap.team.id;
    const doomed = randomUUID();
    const kept = randomUUID();
    await insertEvents(teamId, (n) => (n % 3 === 0 ? doomed : kept), 40);
    await queueDeletion(database().db, { teamId, kind: 'person_events', target: doomed });

    const first = new DeletionRunner(database(), log, { batchSize: 3 });
    for (let i = 0; i < 4; i++) expect(await first.step()).toBe(true);
    // A second runner waits while the first holds the lease.
    expect(await new DeletionRunner(database(), log, { batchSize: 3 }).step()).toBe(false);
    await first.stop();
    // Stopped here (as by a restart): the deletion is still pending, with how far it got.
    const [pending] = await pendingDeletionsOf(database().db, teamId);
    expect(pending).toMatchObject({ kind: 'person_events', target: doomed });
    expect(pending!.cursor_uuid).not.toBeNull();
    const partly = await eventsOf(teamId);
    expect(partly.filter((e) => e.person_id === doomed).length).toBeGreaterThan(0);
    expect(partly.filter((e) => e.person_id === doomed).length).toBeLessThan(14);

    const second = new DeletionRunner(database(), log, { batchSize: 3 });
    await second.drain();
    await second.stop();
    const left = await eventsOf(teamId);
    expect(left.filter((e) => e.person_id === doomed)).toEqual([]);
    expect(left.map((e) => e.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, n) => n).filter((n) => n % 3 !== 0));
    expect(await pendingDeletionsOf(database().db, teamId)).toEqual([]);
  });

  it("delete every row of an environment's tables in batches, and nothing of another", async () => {
    const { db } = database();
    const gone = 900_001;
    const other = server.bootstrap.team.id;
    await insertEvents(gone, () => randomUUID(), 11);
    const now = new Date().toISOString();
    for (const teamId of [gone, other]) {
      await db
        .insertInto('ingestion_warnings')
        .values(Array.from({ length: 7 }, () => ({ team_id: teamId, type: 'probe', source: 'test', details: toJson({}), timestamp: now })))
        .execute();
    }
    const count = async (teamId: number) => {
      const counts: Record<string, number> = {};
      for (const table of await teamOwnedTables(database())) {
        const row = await (db as Kysely<any>)
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('team_id', '=', teamId)
          .executeTakeFirstOrThrow();
        counts[table] = Number(row.n);
      }
      return counts;
    };
    const otherBefore = await count(other);
    expect((await count(gone)).events).toBe(11);
    await queueDeletion(db, { teamId: gone, kind: 'environment' });
    const runner = new DeletionRunner(database(), log, { batchSize: 3 });
    await runner.drain();
    await runner.stop();
    expect(Object.values(await count(gone)).every((n) => n === 0)).toBe(true);
    expect(await count(other)).toEqual(otherBefore);
    expect(await pendingDeletionsOf(db, gone)).toEqual([]);
  });

  it('park a deletion whose batches keep failing, and go on with the others', async () => {
    const { db } = database();
    const stuck = 900_002;
    const fine = 900_003;
    await insertEvents(stuck, () => randomUUID(), 5);
    await insertEvents(fine, () => randomUUID(), 5);
    // A real fault: the database refuses to delete the stuck environment's events.
    const fault =
      BACKEND === 'sqlite'
        ? [`CREATE TRIGGER refuse_stuck BEFORE DELETE ON events WHEN OLD.team_id = ${stuck} BEGIN SELECT RAISE(ABORT, 'refused'); END`]
        : [
            `CREATE FUNCTION refuse_stuck() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF OLD.team_id = ${stuck} THEN RAISE EXCEPTION 'refused'; END IF; RETURN OLD; END $$`,
            'CREATE TRIGGER refuse_stuck BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION refuse_stuck()',
          ];
    for (const statement of fault) await sql.raw(statement).execute(db);
    try {
      await queueDeletion(db, { teamId: stuck, kind: 'environment' });
      await queueDeletion(db, { teamId: fine, kind: 'environment' });
      const runner = new DeletionRunner(database(), log, { batchSize: 3 });
      await runner.drain();
      await runner.stop();
      expect((await eventsOf(fine)).length).toBe(0);
      expect(await pendingDeletionsOf(db, fine)).toEqual([]);
      const [parked] = await pendingDeletionsOf(db, stuck);
      expect(parked).toMatchObject({ kind: 'environment' });
      expect(Number(parked!.attempts)).toBe(MAX_DELETION_ATTEMPTS);
      expect((await eventsOf(stuck)).length).toBe(5);
    } finally {
      const mend =
        BACKEND === 'sqlite' ? ['DROP TRIGGER refuse_stuck'] : ['DROP TRIGGER refuse_stuck ON events', 'DROP FUNCTION refuse_stuck()'];
      for (const statement of mend) await sql.raw(statement).execute(db);
    }
    // The fault mended, a restarted runner gives the parked deletion another round and finishes it.
    const restarted = new DeletionRunner(database(), log, { batchSize: 3, idleMs: 10 });
    restarted.start();
    try {
      await waitFor(() => pendingDeletionsOf(db, stuck), {
        what: 'the parked deletion to be resumed and finished',
        until: (left) => left.length === 0,
      });
    } finally {
      await restarted.stop();
    }
    expect(await eventsOf(stuck)).toEqual([]);
  });

  it("delete several persons' events in one walk of the environment's events", async () => {
    const { db } = database();
    const teamId = 900_004;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await insertEvents(teamId, (n) => [a, b, c, randomUUID()][n % 4]!, 24);
    await queueDeletion(db, { teamId, kind: 'person_events', target: a });
    await queueDeletion(db, { teamId, kind: 'person_events', target: b });
    const runner = new DeletionRunner(database(), log, { batchSize: 5 });
    // One walk of 24 events by pages of 5: five steps finish both deletions together.
    let steps = 0;
    while ((await pendingDeletionsOf(db, teamId)).length > 0) {
      expect(await runner.step()).toBe(true);
      steps++;
    }
    await runner.stop();
    expect(steps).toBe(5);
    const left = await eventsOf(teamId);
    expect(left.filter((e) => e.person_id === a || e.person_id === b)).toEqual([]);
    expect(left.filter((e) => e.person_id === c)).toHaveLength(6);
    expect(left).toHaveLength(12);
  });
});

describe('hoglet deletions', () => {
  it('lists a parked deletion and gives it another round', async () => {
    const { db } = database();
    const teamId = 900_005;
    await queueDeletion(db, { teamId, kind: 'person_events', target: 'a-person' });
    const [row] = await pendingDeletionsOf(db, teamId);
    await db.updateTable('background_deletions').set({ attempts: MAX_DELETION_ATTEMPTS }).where('id', '=', row!.id).execute();
    const run = async (...args: string[]) => {
      const child = runHoglet(['deletions', ...args], { ...server.storage.env, LOG_LEVEL: 'warn' });
      const { code } = await child.exited;
      return { code, output: child.output() };
    };
    const listed = await run('list');
    expect(listed.code).toBe(0);
    expect(listed.output).toMatch(
      new RegExp(
        `^${row!.id} {2}project=${teamId} {2}kind=person_events {2}target=a-person {2}not started {2}attempts=${MAX_DELETION_ATTEMPTS} {2}parked {2}queued=\\S+\\n$`,
      ),
    );
    expect(await run('retry', '--ids', '')).toMatchObject({ code: 1 });
    expect(await run('retry', '--ids', String(row!.id))).toEqual({
      code: 0,
      output: "1 parked deletion given another round; the worker's runner takes them in order\n",
    });
    const [after] = await pendingDeletionsOf(db, teamId);
    expect(Number(after!.attempts)).toBe(0);
    await db.deleteFrom('background_deletions').execute();
    expect(await run('list')).toEqual({ code: 0, output: 'no background deletions pending\n' });
  });
});
