import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalyticsCopier } from '../../src/events/analytics-copier.js';
import {
  addToOutbox,
  eventRow,
  eventRowHead,
  eventRowTail,
  EventLines,
  KeptOutboxRows,
  type OutboxRow,
} from '../../src/events/outbox-rows.js';
import {
  copyOutboxGroup,
  flushOutbox,
  ORPHANED_AFTER_MS,
  outboxHoldsRowsUpTo,
  outboxMark,
  outboxPending,
} from '../../src/events/outbox-copy.js';
import { jsonEachRowText, type AnalyticsEngine, type InsertOptions, type JsonEachRow } from '../../src/platform/analytics/engine.js';
import { toJson } from '../../src/platform/db/values.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { BACKEND } from '../helpers/backend.js';
import { storedEvents } from '../helpers/stored-events.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The copy from the outbox to ClickHouse: many committed batches per insert, and each event
 * stored once whatever fails between the insert and the outbox rows' deletion, and whatever
 * batches commit meanwhile.
 */
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function setUp() {
  const server = await startTestServer({ INGESTION_WORKER: 'off' });
  servers.push(server);
  const { database, analytics } = server.running.ctx;
  return { db: database.db, analytics, teamId: server.bootstrap.team.id };
}

let n = 0;
/** A batch's outbox row of `count` events of one distinct id (kept in `kept`, as a worker keeps its own); returns their uuids. */
async function commitBatch(
  db: Awaited<ReturnType<typeof setUp>>['db'],
  teamId: number,
  distinctId: string,
  count: number,
  kept?: Pick<KeptOutboxRows, 'keep'>,
): Promise<string[]> {
  const uuids: string[] = [];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    n++;
    const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    uuids.push(uuid);
    const at = new Date(Date.parse('2026-03-01T00:00:00Z') + n * 1000).toISOString();
    lines.push(eventRow(teamId, uuid, 'copied', distinctId, '00000000-0000-4000-8000-00000000ffff', '{"n":1}', at, at, null, null));
  }
  const row = await addToOutbox(db, lines.join('\n'), []);
  if (kept && row) kept.keep(row);
  return uuids;
}

/** Dates outbox rows `ageMs` before the database's now (after it when negative), as their writer would have written them then. */
async function stampOutbox(db: Awaited<ReturnType<typeof setUp>>['db'], ids: number[], ageMs: number): Promise<void> {
  const at =
    BACKEND === 'sqlite' ? new Date(Date.now() - ageMs).toISOString() : sql<string>`now() - ${sql.lit(ageMs)} * interval '1 millisecond'`;
  await db.updateTable('analytics_outbox').set({ created_at: at }).where('id', 'in', ids).execute();
}

/** Tells the copier of a batch of `events` committed in the row (with more queued behind it: `backlog`), as the worker does. */
function committedTo(copier: AnalyticsCopier, events: number, backlog = false): Pick<KeptOutboxRows, 'keep'> {
  return { keep: (row: OutboxRow) => copier.committed(events, backlog, [row]) };
}

/** The real engine, its inserts recorded (and, while `failAfter` is set, failing once they went through). */
function recording(engine: AnalyticsEngine) {
  const inserts: { table: string; rows: number; token: string | undefined }[] = [];
  const state = { failAfterInsert: false };
  const wrapped: AnalyticsEngine = Object.create(engine) as AnalyticsEngine;
  wrapped.insert = async (table: string, jsonEachRow: JsonEachRow, options?: InsertOptions) => {
    await engine.insert(table, jsonEachRow, options);
    inserts.push({ table, rows: jsonEachRowText(jsonEachRow).split('\n').length, token: options?.deduplicationToken });
    if (state.failAfterInsert) throw new Error('the process died after the insert');
  };
  return { engine: wrapped, inserts, state };
}

async function stored(analytics: AnalyticsEngine, teamId: number, distinctId: string) {
  return (await storedEvents(analytics, teamId)).filter((e) => e.distinct_id === distinctId).map((e) => e.uuid);
}

describe('analytics copier', () => {
  it('copies many committed batches in one insert, after the delay', async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, inserts } = recording(analytics);
    const copier = new AnalyticsCopier(db, engine, pino({ level: 'silent' }), { maxDelayMs: 200, copyAtEvents: 1000 });
    const uuids: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      uuids.push(...(await commitBatch(db, teamId, 'coalesced', 20, committedTo(copier, 20))));
    }
    await waitFor(() => outboxPending(db), { what: 'the outbox to empty', until: (rows) => rows === 0 });
    expect(inserts.filter((i) => i.table === 'events')).toEqual([{ table: 'events', rows: 100, token: expect.stringMatching(/^group:/) }]);
    expect((await stored(analytics, teamId, 'coalesced')).sort()).toEqual(uuids.sort());
    await copier.stop();
  });

  it('copies at once when enough events wait', async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, inserts } = recording(analytics);
    // A delay no test waits for: only the event count can start the copy.
    const copier = new AnalyticsCopier(db, engine, pino({ level: 'silent' }), { maxDelayMs: 3_600_000, copyAtEvents: 50 });
    await commitBatch(db, teamId, 'eager', 30, committedTo(copier, 30));
    await commitBatch(db, teamId, 'eager', 30, committedTo(copier, 30));
    await waitFor(() => outboxPending(db), { what: 'the outbox to empty', until: (rows) => rows === 0 });
    expect(inserts.map((i) => i.rows)).toEqual([60]);
    expect(await stored(analytics, teamId, 'eager')).toHaveLength(60);
    await copier.stop();
  });

  it('under a backlog, batches committed during a copy wait for a full copy, not for the short delay', async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, inserts } = recording(analytics);
    // The first insert waits until released, so that batches commit while it runs.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let inserting = () => {};
    const firstInsert = new Promise<void>((resolve) => (inserting = resolve));
    const gated: AnalyticsEngine = Object.create(engine) as AnalyticsEngine;
    gated.insert = async (table, rows, options) => {
      if (inserts.length === 0) {
        inserting();
        await released;
      }
      return engine.insert(table, rows, options);
    };
    // A short delay for a quiet stream, and a backlog's delay that no test waits for.
    const copier = new AnalyticsCopier(db, gated, pino({ level: 'silent' }), {
      maxDelayMs: 1,
      copyAtEvents: 50,
      backlogDelayMs: 3_600_000,
    });
    await commitBatch(db, teamId, 'backlog', 50, committedTo(copier, 50, true));
    await firstInsert;
    await commitBatch(db, teamId, 'backlog', 20, committedTo(copier, 20, true));
    release();
    await waitFor(() => outboxPending(db), { what: 'the first copy', until: (rows) => rows === 1 });
    await commitBatch(db, teamId, 'backlog', 30, committedTo(copier, 30, true));
    await waitFor(() => outboxPending(db), { what: 'the outbox to empty', until: (rows) => rows === 0 });
    expect(inserts.filter((i) => i.table === 'events').map((i) => i.rows)).toEqual([50, 50]);
    expect(await stored(analytics, teamId, 'backlog')).toHaveLength(100);
    await copier.stop();
  });

  it('repeats a copy that failed after its insert with the same rows and token: nothing twice', async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, inserts, state } = recording(analytics);
    const first = [...(await commitBatch(db, teamId, 'replayed', 10)), ...(await commitBatch(db, teamId, 'replayed', 10))];
    state.failAfterInsert = true;
    await expect(copyOutboxGroup(db, engine)).rejects.toThrow('the process died after the insert');
    state.failAfterInsert = false;
    // The rows stayed; a batch committed after the failure is not part of the repeated insert.
    expect(await outboxPending(db)).toBe(2);
    const later = await commitBatch(db, teamId, 'replayed', 10);
    expect(await flushOutbox(db, engine)).toBe(3);
    expect(inserts.map((i) => [i.rows, i.token])).toEqual([
      [20, inserts[0]!.token],
      [20, inserts[0]!.token],
      [10, expect.not.stringMatching(inserts[0]!.token!)],
    ]);
    expect((await stored(analytics, teamId, 'replayed')).sort()).toEqual([...first, ...later].sort());
  });

  it('two copies at once store each event once', async () => {
    const { db, analytics, teamId } = await setUp();
    const uuids: string[] = [];
    for (let batch = 0; batch < 6; batch++) uuids.push(...(await commitBatch(db, teamId, 'raced', 5)));
    await Promise.all([flushOutbox(db, analytics), flushOutbox(db, analytics)]);
    expect(await outboxPending(db)).toBe(0);
    expect((await stored(analytics, teamId, 'raced')).sort()).toEqual(uuids.sort());
  });

  it('two copies at once take different rows: no group is inserted twice', async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, inserts } = recording(analytics);
    const uuids: string[] = [];
    for (let batch = 0; batch < 6; batch++) uuids.push(...(await commitBatch(db, teamId, 'side by side', 5)));
    const copied = await Promise.all([flushOutbox(db, engine), flushOutbox(db, engine), flushOutbox(db, engine)]);
    expect(copied.reduce((a, b) => a + b, 0)).toBe(6);
    expect(await outboxPending(db)).toBe(0);
    // Each event went to ClickHouse in one insert: a group a live copy held was left to it.
    const tokens = inserts.filter((i) => i.table === 'events').map((i) => i.token);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(inserts.filter((i) => i.table === 'events').reduce((sum, i) => sum + i.rows, 0)).toBe(30);
    expect((await stored(analytics, teamId, 'side by side')).sort()).toEqual(uuids.sort());
  });

  it('copies rows its writer kept with rows read from the outbox, each once, and forgets them once copied', async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, inserts } = recording(analytics);
    const kept = new KeptOutboxRows();
    const uuids: string[] = [];
    for (let batch = 0; batch < 4; batch++) uuids.push(...(await commitBatch(db, teamId, 'kept', 5, batch % 2 === 0 ? kept : undefined)));
    expect(kept.size).toBe(2);
    expect(await flushOutbox(db, engine, kept)).toBe(4);
    expect(inserts.map((i) => [i.table, i.rows])).toEqual([['events', 20]]);
    expect((await stored(analytics, teamId, 'kept')).sort()).toEqual(uuids.sort());
    expect(kept.size).toBe(0);
    // A kept row that another copy took: dropped by the next copy, which finds the outbox past it.
    uuids.push(...(await commitBatch(db, teamId, 'kept', 5, kept)));
    await flushOutbox(db, analytics);
    uuids.push(...(await commitBatch(db, teamId, 'kept', 5)));
    expect(await flushOutbox(db, engine, kept)).toBe(1);
    expect(kept.size).toBe(0);
    expect((await stored(analytics, teamId, 'kept')).sort()).toEqual(uuids.sort());
  });

  it("beside other workers, a copy takes its own rows and leaves the others' to them until they are orphaned", async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, inserts } = recording(analytics);
    const mine = new KeptOutboxRows();
    const theirs = new KeptOutboxRows();
    const own: string[] = [];
    const others: string[] = [];
    for (let batch = 0; batch < 4; batch++) {
      own.push(...(await commitBatch(db, teamId, 'own', 3, mine)));
      others.push(...(await commitBatch(db, teamId, 'others', 3, theirs)));
    }
    // The others' rows written an hour ahead on the database's clock: none is an orphan yet, however long the test takes.
    await stampOutbox(db, theirs.ids(), -3_600_000);
    const copied = await copyOutboxGroup(db, engine, mine);
    if (BACKEND === 'sqlite') {
      // One writer on SQLite: its copy takes every row.
      expect(copied).toBe(8);
      expect(await outboxPending(db)).toBe(0);
      return;
    }
    expect(copied).toBe(4);
    expect(inserts.map((i) => [i.table, i.rows])).toEqual([['events', 12]]);
    expect((await stored(analytics, teamId, 'own')).sort()).toEqual(own.sort());
    expect(await stored(analytics, teamId, 'others')).toEqual([]);
    expect(mine.size).toBe(0);
    // Nothing of its own is left: the copy waits for nobody and copies nothing.
    expect(await copyOutboxGroup(db, engine, mine)).toBe(0);
    expect(await outboxPending(db)).toBe(4);
    // Once the others' rows are past the age limit, whoever copies next takes them.
    await stampOutbox(db, theirs.ids(), ORPHANED_AFTER_MS + 1000);
    expect(await copyOutboxGroup(db, engine, mine)).toBe(4);
    expect((await stored(analytics, teamId, 'others')).sort()).toEqual(others.sort());
    expect(await outboxPending(db)).toBe(0);
  });

  it("plans no copy for another writer's young rows, only for rows it could claim", async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, inserts } = recording(analytics);
    // Its own batch is copied at once; a copy planned after it would wait an hour, and copyIfIdle does nothing meanwhile.
    const copier = new AnalyticsCopier(db, engine, pino({ level: 'silent' }), { maxDelayMs: 3_600_000, copyAtEvents: 1 });
    const theirs = new KeptOutboxRows();
    const others = await commitBatch(db, teamId, 'their young rows', 3, theirs);
    // Young however long the test takes: another worker's, to be copied by it.
    await stampOutbox(db, theirs.ids(), -3_600_000);
    const own = await commitBatch(db, teamId, 'own rows', 3, committedTo(copier, 3));
    // Once its copy is done and no other is planned, the copier is idle: copyIfIdle then drains the outbox.
    await waitFor(
      async () => {
        copier.copyIfIdle();
        return outboxPending(db);
      },
      { what: 'an idle copier to drain the outbox', until: (rows) => rows === 0 },
    );
    // On SQLite (one writer) the first copy took every row.
    expect(inserts.map((i) => [i.table, i.rows])).toEqual(
      BACKEND === 'sqlite'
        ? [['events', 6]]
        : [
            ['events', 3],
            ['events', 3],
          ],
    );
    expect((await stored(analytics, teamId, 'own rows')).sort()).toEqual(own.sort());
    expect((await stored(analytics, teamId, 'their young rows')).sort()).toEqual(others.sort());
    await copier.stop();
  });

  it('a mark holds the rows at or below it, not those committed after it; an empty outbox marks 0', async () => {
    const { db, analytics, teamId } = await setUp();
    await flushOutbox(db, analytics);
    expect(await outboxMark(db)).toBe(0);
    expect(await outboxHoldsRowsUpTo(db, 0)).toBe(false);
    const kept = new KeptOutboxRows();
    await commitBatch(db, teamId, 'before the mark', 1, kept);
    const [before] = kept.ids();
    const mark = await outboxMark(db);
    expect(mark).toBe(before);
    expect(await outboxHoldsRowsUpTo(db, mark)).toBe(true);
    await commitBatch(db, teamId, 'after the mark', 1, kept);
    const after = kept.ids().find((id) => id !== before)!;
    expect(after).toBeGreaterThan(mark);
    expect(await outboxMark(db)).toBe(after);
    // The row before the mark copied (gone), the later one left: nothing at or below the mark waits.
    await db.deleteFrom('analytics_outbox').where('id', '=', before!).execute();
    expect(await outboxHoldsRowsUpTo(db, mark)).toBe(false);
    expect(await outboxHoldsRowsUpTo(db, after)).toBe(true);
  });

  it('a copy takes its oldest rows when it keeps more than a statement can name', async () => {
    const { db, analytics, teamId } = await setUp();
    const kept = new KeptOutboxRows();
    const uuids = await commitBatch(db, teamId, 'long backlog', 3, kept);
    // Rows it still counts as its own, beyond PostgreSQL's 65,535 parameters a statement.
    for (let id = 1; id <= 70_000; id++) kept.keep({ id: 1_000_000_000 + id, events: '', personOverrides: '' });
    expect(await copyOutboxGroup(db, analytics, kept)).toBe(1);
    expect((await stored(analytics, teamId, 'long backlog')).sort()).toEqual(uuids.sort());
  });

  it("a drain takes every worker's rows", async () => {
    const { db, analytics, teamId } = await setUp();
    const mine = new KeptOutboxRows();
    const uuids: string[] = [];
    for (let batch = 0; batch < 4; batch++)
      uuids.push(...(await commitBatch(db, teamId, 'drained', 3, batch % 2 === 0 ? mine : undefined)));
    expect(await flushOutbox(db, analytics, mine)).toBe(4);
    expect((await stored(analytics, teamId, 'drained')).sort()).toEqual(uuids.sort());
  });

  it("stores each event's properties as the text it was given, from rows of this version and rows written before it", async () => {
    const { db, analytics, teamId } = await setUp();
    const texts = [
      toJson({}),
      toJson({ 'k"ey': 'v\\al', line: '\u2028\u2029 é 😀 \u0001\n\t', lone: '\ud800' }),
      toJson({ nested: { a: [1, { b: null }, []], c: {} }, big: 1e21, neg: -0.5, '': '' }),
      // Not JSON.stringify's spelling, kept as it is all the same.
      '{"a":"\\u00e9\\/","b":{ }}',
    ];
    const at = '2026-03-02T00:00:00.000Z';
    const uuid = (i: number) => `00000000-0000-4000-8000-00000000a${String(i).padStart(3, '0')}`;
    const person = '00000000-0000-4000-8000-00000000ffff';
    // As a worker's batch writes them.
    const lines = new EventLines();
    texts.forEach((text, i) => lines.add(eventRowHead(teamId, uuid(i), 'texts', 'texts', person), text, eventRowTail(at, at, null, null)));
    expect(lines.text()).toBe(
      texts.map((text, i) => eventRow(teamId, uuid(i), 'texts', 'texts', person, text, at, at, null, null)).join('\n'),
    );
    await addToOutbox(db, lines.text(), []);
    // A row written before this version: its properties escaped into a JSON string.
    const old = texts.map((text, i) => eventRow(teamId, uuid(100 + i), 'texts', 'texts', person, JSON.stringify(text), at, at, null, null));
    await addToOutbox(db, old.join('\n'), []);
    expect(await flushOutbox(db, analytics)).toBe(2);
    const stored = (await storedEvents(analytics, teamId)).filter((e) => e.event === 'texts');
    expect(stored.map((e) => e.properties)).toEqual([...texts, ...texts]);
  });

  it('retries a failed copy on its own', async () => {
    const { db, analytics, teamId } = await setUp();
    const { engine, state } = recording(analytics);
    state.failAfterInsert = true;
    const copier = new AnalyticsCopier(db, engine, pino({ level: 'silent' }), { maxDelayMs: 10 });
    const uuids = await commitBatch(db, teamId, 'retried', 5, committedTo(copier, 5));
    await waitFor(async () => (await stored(analytics, teamId, 'retried')).length, {
      what: 'the first insert',
      until: (count) => count === 5,
    });
    state.failAfterInsert = false;
    await waitFor(() => outboxPending(db), { what: 'the retried copy', until: (rows) => rows === 0 });
    expect((await stored(analytics, teamId, 'retried')).sort()).toEqual(uuids.sort());
    await copier.stop();
  });
});
