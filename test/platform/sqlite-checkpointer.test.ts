/**
 * The SQLite checkpoint thread (src/platform/db/sqlite-checkpointer.ts), on a SQLite file of its own (it
 * runs in both CI passes). The thresholds are made small, and the main connection's own automatic
 * checkpoint (the fallback) is moved out of reach, so every restart here is the thread's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { waitFor } from '../helpers/wait.js';

const FRAME_BYTES = 4096 + 24;
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The WAL header's checkpoint sequence number: a writer that starts the WAL over adds one. */
function walCheckpointSequence(file: string): number {
  const header = Buffer.alloc(16);
  const fd = fs.openSync(`${file}-wal`, 'r');
  try {
    fs.readSync(fd, header, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  return header.readUInt32BE(12);
}

/** A fresh SQLite file opened with a checkpoint thread set small, and the lines it logged. */
async function openWithThread() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-checkpointer-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'test.db');
  const lines: Array<{ level: string; msg: string }> = [];
  const log = {
    debug: (_: unknown, msg: string) => void lines.push({ level: 'debug', msg }),
    warn: (_: unknown, msg: string) => void lines.push({ level: 'warn', msg }),
    error: (_: unknown, msg: string) => void lines.push({ level: 'error', msg }),
  };
  const database = await openDatabase({
    sqliteFile: file,
    backgroundCheckpoints: { log: log as never, restartFrames: 64, intervalMs: 10, fallbackFrames: 1_000_000 },
  });
  let closed = false;
  cleanups.push(async () => {
    if (!closed) await database.close();
  });
  await sql`create table filler (id integer primary key, payload text not null)`.execute(database.db);
  let rows = 0;
  return {
    file,
    database,
    lines,
    rows: () => rows,
    /** Transactions of fifty 1 KB rows (about 13 frames each), a turn of the event loop between them. */
    write: async (transactions: number) => {
      for (let t = 0; t < transactions; t++) {
        await database.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 50; i++) await sql`insert into filler (id, payload) values (${rows++}, ${'x'.repeat(1000)})`.execute(trx);
        });
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    restarts: () => lines.filter((l) => l.msg === 'sqlite wal restarted').length,
    close: async () => {
      closed = true;
      await database.close();
    },
  };
}

it('restarts the WAL from a thread of its own, so the file stops growing, and loses nothing', async () => {
  const { file, lines, rows, write, restarts, close } = await openWithThread();
  // About 780 frames in four rounds, each followed by a restart of the thread's (waited for: on a
  // busy machine the thread may get no time while the writes run, which is no fault of it).
  for (let round = 1; round <= 4; round++) {
    const before = restarts();
    await write(15); // about 195 frames
    await waitFor(restarts, { what: `the thread's restart in round ${round}`, until: (n) => n > before });
  }
  const written = fs.statSync(`${file}-wal`).size;
  // Restarted WALs are written again from their beginning: the file stays as short as the frames
  // between two restarts (at most two rounds' worth, ~390, when a round's restart came early in
  // it), far shorter than what went through it (without restarts it would hold every frame, ~780).
  expect(written).toBeLessThan(500 * FRAME_BYTES);
  expect(lines.filter((l) => l.level !== 'debug')).toEqual([]);

  // Closing stops the thread (the test would hang otherwise); every row is in the file.
  await close();
  const check = new BetterSqlite3(file, { readonly: true });
  try {
    expect(check.prepare('select count(*) as n from filler').get()).toEqual({ n: rows() });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    check.close();
  }
}, 60_000);

it('leaves the WAL to a reader still using it (giving up at once, writes go on) and restarts it after', async () => {
  const { file, database, lines, rows, write, restarts } = await openWithThread();
  await write(2);

  // Another connection (as another process would) reads a snapshot that includes WAL frames,
  // and keeps its read transaction open.
  const reader = new BetterSqlite3(file, { readonly: true });
  cleanups.push(() => void reader.close());
  reader.exec('begin');
  const seen = (reader.prepare('select count(*) as n from filler').get() as { n: number }).n;
  expect(seen).toBe(rows());

  // The WAL passes the threshold many times over: the thread cannot restart it under the reader
  // (it gives up at once), and the writes go through.
  const before = restarts();
  await write(40);
  expect((reader.prepare('select count(*) as n from filler').get() as { n: number }).n).toBe(seen); // still its snapshot

  // Proof that the thread tried while readers held the WAL, instead of a pause: a new reader takes
  // over (its snapshot the whole WAL) and the old one lets go, so the thread's next tick can copy
  // every frame into the database file, which then holds every page, and having copied them all
  // it tries the restart in the same tick, under the new reader. Twice: a restart (wrongly)
  // reported by the first of those ticks was posted before the second tick copied anything.
  const pageSize = Number((await sql<{ page_size: number }>`pragma page_size`.execute(database.db)).rows[0]!.page_size);
  const handOver = async (from: BetterSqlite3.Database) => {
    const next = new BetterSqlite3(file, { readonly: true });
    cleanups.push(() => void next.close());
    next.exec('begin');
    expect((next.prepare('select count(*) as n from filler').get() as { n: number }).n).toBe(rows());
    from.exec('commit');
    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(database.db)).rows[0]!.page_count);
    await waitFor(() => fs.statSync(file).size, {
      what: `the thread to copy the WAL into the database file (${pages} pages)`,
      until: (size) => size >= pages * pageSize,
    });
    return next;
  };
  const second = await handOver(reader);
  await write(1);
  const third = await handOver(second);
  expect(restarts()).toBe(before);

  // Once the readers are done, the next tick restarts the WAL: the next writer starts it over
  // (its header's checkpoint sequence goes up by one), and that is the only restart reported.
  const sequence = walCheckpointSequence(file);
  third.exec('commit');
  await waitFor(restarts, { what: 'the restart once the readers are done', until: (n) => n > before });
  await write(1);
  expect(walCheckpointSequence(file)).toBe(sequence + 1);
  expect(restarts()).toBe(before + 1);
  expect(lines.filter((l) => l.level !== 'debug')).toEqual([]);
  const check = (await sql<{ n: number }>`select count(*) as n from filler`.execute(database.db)).rows[0]!;
  expect(Number(check.n)).toBe(rows());
}, 60_000);
