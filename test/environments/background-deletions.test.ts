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
import { eventRow } from '../../src/events/outbox-rows.js';
import { ch, raw } from '../../src/platform/analytics/sql.js';
import { personUuidFromDistinctId } from '../../src/persons/person-uuid.js';
import { BACKEND } from '../helpers/backend.js';
import { runHoglet } from '../helpers/process.js';
import { useTestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';
import { waitFor } from '../helpers/wait.js';

// No inline worker, so no runner of the server's own: the tests drive theirs.
const server = useTestServer({ INGESTION_WORKER: 'off' });
const log = pino({ level: 'silent' });
const database = () => server.running.ctx.database;
const analytics = () => server.running.ctx.analytics;
const newRunner = (options: { batchSize: number; idleMs?: number }) => new DeletionRunner(database(), analytics(), log, options);
const pendingDeletionsOf = async (db: Kysely<any>, teamId: number) =>
  (await listPendingDeletions(db)).filter((d) => Number(d.owner_team_id) === teamId);

interface TestEvent {
  person: string;
  distinctId?: string;
  session?: string;
  url?: string;
  createdAt?: string;
}

/** Events stored as the worker stores them: in ClickHouse, their uuids in SQL. */
async function insertEvents(teamId: number, eventOf: (n: number) => TestEvent, count: number): Promise<void> {
  const uuids: string[] = [];
  const lines = Array.from({ length: count }, (_, n) => {
    const event = eventOf(n);
    // Four events per instant: batches of 3 end inside runs of equal timestamps.
    const timestamp = new Date(Date.parse('2025-11-01T00:00:00Z') + Math.floor(n / 4) * 60_000).toISOString();
    const uuid = randomUUID();
    uuids.push(uuid);
    const properties = event.url ? { n, $current_url: event.url } : { n };
    const distinctId = event.distinctId ?? `d-${n}`;
    return eventRow(
      teamId,
      uuid,
      'e',
      distinctId,
      event.person,
      toJson(properties) as string,
      timestamp,
      event.createdAt ?? timestamp,
      event.session ?? null,
      null,
    );
  });
  await analytics().insert('events', lines.join('\n'));
  await database()
    .db.insertInto('event_uuids')
    .values(uuids.map((uuid) => ({ team_id: teamId, uuid })))
    .execute();
}

async function eventsOf(teamId: number): Promise<Array<{ person_id: string; n: number }>> {
  return (await storedEvents(analytics(), teamId)).map((e) => ({ person_id: e.person_id, n: JSON.parse(e.properties).n as number }));
}

/** Rows of the team in a ClickHouse table. */
async function analyticsRows(table: string, teamId: number): Promise<number> {
  const { sql: text, params } = ch`SELECT count() AS n FROM ${raw(analytics().table(table))} WHERE team_id = ${teamId}`.compile();
  return (await analytics().query<{ n: number }>(text, params))[0]!.n;
}

async function eventUuidsOf(teamId: number): Promise<number> {
  const row = await database()
    .db.selectFrom('event_uuids')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('background deletions', () => {
  it("delete a person's events across many pages, resumed after a stop half-way", async () => {
    const teamId = server.bootstrap.team.id;
    const doomed = randomUUID();
    const kept = randomUUID();
    await insertEvents(teamId, (n) => ({ person: n % 3 === 0 ? doomed : kept }), 40);
    await queueDeletion(database().db, { teamId, kind: 'person_events', target: doomed });

    const first = newRunner({ batchSize: 3 });
    for (let i = 0; i < 4; i++) expect(await first.step()).toBe(true);
    // A second runner waits while the first holds the lease.
    expect(await newRunner({ batchSize: 3 }).step()).toBe(false);
    await first.stop();
    // Stopped here (as by a restart): the deletion is still pending, with how far it got (batches
    // of the person's events, oldest first).
    const [pending] = await pendingDeletionsOf(database().db, teamId);
    expect(pending).toMatchObject({ kind: 'person_events', target: doomed });
    expect(pending!.cursor_uuid).not.toBeNull();
    const partly = await eventsOf(teamId);
    expect(
      partly
        .filter((e) => e.person_id === doomed)
        .map((e) => e.n)
        .sort((a, b) => a - b),
    ).toEqual([36, 39]);
    expect(pending!.cursor_timestamp).toBe('2025-11-01T00:08:00.000Z');

    const second = newRunner({ batchSize: 3 });
    await second.drain();
    await second.stop();
    const left = await eventsOf(teamId);
    expect(left.filter((e) => e.person_id === doomed)).toEqual([]);
    expect(left.map((e) => e.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, n) => n).filter((n) => n % 3 !== 0));
    expect(await pendingDeletionsOf(database().db, teamId)).toEqual([]);
    expect(await eventUuidsOf(teamId)).toBe(26);
  });

  it("delete every row of an environment's tables in batches, and nothing of another", async () => {
    const { db } = database();
    const gone = 900_001;
    const other = server.bootstrap.team.id;
    await insertEvents(gone, (n) => ({ person: randomUUID(), session: `s-${n % 2}` }), 11);
    await insertEvents(other, (n) => ({ person: randomUUID(), session: `s-${n % 2}` }), 4);
    for (const teamId of [gone, other]) {
      await db
        .insertInto('person_overrides')
        .values({ team_id: teamId, old_person_id: randomUUID(), override_person_id: randomUUID() })
        .execute();
      await analytics().insert(
        'person_overrides',
        JSON.stringify({ team_id: teamId, old_person_id: randomUUID(), override_person_id: randomUUID(), version: 1 }),
      );
    }
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
      for (const table of ['events', 'sessions', 'person_overrides']) counts[`clickhouse ${table}`] = await analyticsRows(table, teamId);
      return counts;
    };
    const otherBefore = await count(other);
    expect(await count(gone)).toMatchObject({
      event_uuids: 11,
      person_overrides: 1,
      ingestion_warnings: 7,
      'clickhouse events': 11,
      'clickhouse sessions': 2,
      'clickhouse person_overrides': 1,
    });
    await queueDeletion(db, { teamId: gone, kind: 'environment' });
    const runner = newRunner({ batchSize: 3 });
    await runner.drain();
    await runner.stop();
    const after = await count(gone);
    expect(
      Object.values(after).every((n) => n === 0),
      JSON.stringify(after),
    ).toBe(true);
    expect(await count(other)).toEqual(otherBefore);
    expect(await pendingDeletionsOf(db, gone)).toEqual([]);
  });

  it('park a deletion whose batches keep failing, and go on with the others', async () => {
    const { db } = database();
    const stuck = 900_002;
    const fine = 900_003;
    await insertEvents(stuck, () => ({ person: randomUUID() }), 5);
    await insertEvents(fine, () => ({ person: randomUUID() }), 5);
    // A real fault: the database refuses to delete the stuck environment's event uuids (its
    // ClickHouse rows go only once its SQL rows are gone).
    const fault =
      BACKEND === 'sqlite'
        ? [`CREATE TRIGGER refuse_stuck BEFORE DELETE ON event_uuids WHEN OLD.team_id = ${stuck} BEGIN SELECT RAISE(ABORT, 'refused'); END`]
        : [
            `CREATE FUNCTION refuse_stuck() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF OLD.team_id = ${stuck} THEN RAISE EXCEPTION 'refused'; END IF; RETURN OLD; END $$`,
            'CREATE TRIGGER refuse_stuck BEFORE DELETE ON event_uuids FOR EACH ROW EXECUTE FUNCTION refuse_stuck()',
          ];
    for (const statement of fault) await sql.raw(statement).execute(db);
    try {
      await queueDeletion(db, { teamId: stuck, kind: 'environment' });
      await queueDeletion(db, { teamId: fine, kind: 'environment' });
      const runner = newRunner({ batchSize: 3 });
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
        BACKEND === 'sqlite' ? ['DROP TRIGGER refuse_stuck'] : ['DROP TRIGGER refuse_stuck ON event_uuids', 'DROP FUNCTION refuse_stuck()'];
      for (const statement of mend) await sql.raw(statement).execute(db);
    }
    // The fault mended, a restarted runner gives the parked deletion another round and finishes it.
    const restarted = newRunner({ batchSize: 3, idleMs: 10 });
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

  it("delete several persons' events in the same batches", async () => {
    const { db } = database();
    const teamId = 900_004;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await insertEvents(teamId, (n) => ({ person: [a, b, c, randomUUID()][n % 4]! }), 24);
    await queueDeletion(db, { teamId, kind: 'person_events', target: a });
    await queueDeletion(db, { teamId, kind: 'person_events', target: b });
    const runner = newRunner({ batchSize: 5 });
    // Their 12 events by batches of 5: three steps finish both deletions together.
    let steps = 0;
    while ((await pendingDeletionsOf(db, teamId)).length > 0) {
      expect(await runner.step()).toBe(true);
      steps++;
    }
    await runner.stop();
    expect(steps).toBe(3);
    const left = await eventsOf(teamId);
    expect(left.filter((e) => e.person_id === a || e.person_id === b)).toEqual([]);
    expect(left.filter((e) => e.person_id === c)).toHaveLength(6);
    expect(left).toHaveLength(12);
  });
  it("delete a person's events by the persons merged into it and its distinct ids, rebuild the sessions they shared, drop its overrides", async () => {
    const { db } = database();
    const teamId = 900_006;
    const [deleted, merged, other, living] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await db
      .insertInto('persons')
      .values({
        uuid: living,
        team_id: teamId,
        properties: toJson({}),
        is_identified: false,
        created_at: new Date().toISOString(),
        version: 0,
      })
      .execute();
    const later = '2999-01-01T00:00:00.000Z';
    const events: TestEvent[] = [
      { person: deleted, distinctId: 'p-1', session: 'shared', url: 'https://x.test/a' },
      { person: merged, distinctId: 'p-2', session: 'shared', url: 'https://x.test/b' },
      { person: other, distinctId: 'o', session: 'shared', url: 'https://x.test/c' },
      // Personless, sent by one of its ids before the deletion: the person's.
      { person: personUuidFromDistinctId(teamId, 'p-1'), distinctId: 'p-1' },
      // The id's owner since, which exists (its event's creation time before the deletion's): kept.
      { person: living, distinctId: 'p-1' },
      // Sent by the id after the deletion: someone else's.
      { person: personUuidFromDistinctId(teamId, 'p-1'), distinctId: 'p-1', createdAt: later },
    ];
    await insertEvents(teamId, (n) => events[n]!, events.length);
    const unrelated = { team_id: teamId, old_person_id: randomUUID(), override_person_id: other };
    await db
      .insertInto('person_overrides')
      .values([{ team_id: teamId, old_person_id: merged, override_person_id: deleted }, unrelated])
      .execute();
    await analytics().insert(
      'person_overrides',
      [{ team_id: teamId, old_person_id: merged, override_person_id: deleted }, unrelated]
        .map((row) => JSON.stringify({ ...row, version: 1 }))
        .join('\n'),
    );
    await queueDeletion(db, { teamId, kind: 'person_events', target: deleted, distinctIds: ['p-1', 'p-2'] });
    const runner = newRunner({ batchSize: 2 });
    await runner.drain();
    await runner.stop();

    expect(await pendingDeletionsOf(db, teamId)).toEqual([]);
    expect((await eventsOf(teamId)).map((e) => e.n).sort()).toEqual([2, 4, 5]);
    expect(await eventUuidsOf(teamId)).toBe(3);
    // The shared session is what is left of it: the other person's event.
    const { sql: text, params } = ch`SELECT session_id, argMinMerge(entry_url) AS entry, uniqExactMerge(event_count) AS events
      FROM ${raw(analytics().table('sessions'))} WHERE team_id = ${teamId} GROUP BY session_id`.compile();
    expect(await analytics().query(text, params)).toEqual([{ session_id: 'shared', entry: 'https://x.test/c', events: 1 }]);
    const overrides = await db
      .selectFrom('person_overrides')
      .select(['old_person_id', 'override_person_id'])
      .where('team_id', '=', teamId)
      .execute();
    expect(overrides).toEqual([{ old_person_id: unrelated.old_person_id, override_person_id: other }]);
    const inClickHouse = ch`SELECT toString(old_person_id) AS old_person_id, toString(override_person_id) AS override_person_id
      FROM ${raw(analytics().table('person_overrides'))} WHERE team_id = ${teamId}`.compile();
    expect(await analytics().query(inClickHouse.sql, inClickHouse.params)).toEqual(overrides);
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
    // The refused retry reads no row: it runs beside the listing rather than after it.
    const [listed, refused] = await Promise.all([run('list'), run('retry', '--ids', '')]);
    expect(listed.code).toBe(0);
    expect(listed.output).toMatch(
      new RegExp(
        `^${row!.id} {2}project=${teamId} {2}kind=person_events {2}target=a-person {2}not started {2}attempts=${MAX_DELETION_ATTEMPTS} {2}parked {2}queued=\\S+\\n$`,
      ),
    );
    expect(refused).toMatchObject({ code: 1 });
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
