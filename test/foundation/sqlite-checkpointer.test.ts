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

const FRAME_BYTES = 4096 + 24;
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(check: () => boolean, timeoutMs = 20_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
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
    /** Transactions of fifty 1 KB rows (about 13 frames each), with pauses in which the thread can work. */
    write: async (transactions: number) => {
      for (let t = 0; t < transactions; t++) {
        await database.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 50; i++) await sql`insert into filler (id, payload) values (${rows++}, ${'x'.repeat(1000)})`.execute(trx);
        });
        await new Promise((resolve) => setTimeout(resolve, 2));
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
  // About a thousand frames in four rounds, each followed by a restart of the thread's (waited for:
  // on a busy machine the thread may get no time while the writes run, which is no fault of it).
  for (let round = 1; round <= 4; round++) {
    const before = restarts();
    await write(20); // about 260 frames
    expect(await until(() => restarts() > before), `round ${round}`).toBe(true);
  }
  const written = fs.statSync(`${file}-wal`).size;
  // Restarted WALs are written again from their beginning: the file stays as short as the frames
  // between two restarts, far shorter than what went through it (without restarts it would hold
  // every frame, ~1000).
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
  await new Promise((resolve) => setTimeout(resolve, 300)); // some thirty ticks of the thread
  expect(restarts()).toBe(before);
  expect((reader.prepare('select count(*) as n from filler').get() as { n: number }).n).toBe(seen); // still its snapshot

  // Once the reader is done, the next tick restarts the WAL.
  reader.exec('commit');
  expect(await until(() => restarts() > before)).toBe(true);
  expect(lines.filter((l) => l.level !== 'debug')).toEqual([]);
  const check = (await sql<{ n: number }>`select count(*) as n from filler`.execute(database.db)).rows[0]!;
  expect(Number(check.n)).toBe(rows());
}, 60_000);
