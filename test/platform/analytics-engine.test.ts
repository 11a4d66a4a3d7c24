import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedEngine } from '../../src/platform/analytics/embedded-engine.js';
import { FolderEngine } from '../../src/platform/analytics/folder-engine.js';
import { AnalyticsError } from '../../src/platform/analytics/engine.js';
import { ch, chTime, fromClickHouseTime, join, raw, toClickHouseTime } from '../../src/platform/analytics/sql.js';
import { runHoglet } from '../helpers/process.js';

const log = pino({ level: 'silent' });
const folders: string[] = [];
function folder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-ch-'));
  folders.push(dir);
  return path.join(dir, 'clickhouse');
}
afterAll(() => {
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});
const options = (p: string) => ({ path: p, maxMemoryBytes: 512 * 1024 * 1024, maxThreads: 1 });

describe('ch templates', () => {
  it('binds values as typed parameters, never as text', () => {
    const name = "x' OR 1=1 --";
    const { sql, params } =
      ch`SELECT ${raw('a')} FROM t WHERE s = ${name} AND n IN ${[1, 2]} AND ${join([ch`f = ${1.5}`, ch`d > ${chTime('2026-01-02T03:04:05.123Z')}`], ' OR ')}`.compile();
    expect(sql).toBe(
      "SELECT a FROM t WHERE s = {p0:String} AND n IN {p1:Array(Int64)} AND f = {p2:Float64} OR d > {p3:DateTime64(6, 'UTC')}",
    );
    expect(params).toEqual({ p0: name, p1: [1, 2], p2: 1.5, p3: '2026-01-02 03:04:05.123000' });
  });

  it('converts instants both ways', () => {
    expect(toClickHouseTime('2026-01-02T03:04:05Z')).toBe('2026-01-02 03:04:05.000000');
    expect(toClickHouseTime('2026-01-02T04:04:05.5+01:00')).toBe('2026-01-02 03:04:05.500000');
    // Past DateTime64's range (years 1900-2299) an instant is read as the range's nearest end, not
    // as ISO's extended years ("-000050-…"), which ClickHouse cannot read.
    const early = new Date(0);
    early.setUTCFullYear(-50, 0, 1);
    expect(toClickHouseTime(early)).toBe('1900-01-01 00:00:00.000000');
    expect(toClickHouseTime(new Date(Date.UTC(1899, 11, 31, 23)))).toBe('1900-01-01 00:00:00.000000');
    expect(toClickHouseTime('0050-01-01T00:00:00+01:00')).toBe('1900-01-01 00:00:00.000000');
    expect(toClickHouseTime(new Date(Date.UTC(2400, 0, 1)))).toBe('2299-12-31 23:59:59.999000');
    expect(fromClickHouseTime('2026-01-02T03:04:05.123000Z')).toBe('2026-01-02T03:04:05.123Z');
    expect(fromClickHouseTime('2026-01-02T03:04:05.123456Z')).toBe('2026-01-02T03:04:05.123456Z');
  });
});

describe('the embedded engine', () => {
  it('answers parameterised queries and drops an insert whose token it has seen', async () => {
    const engine = await EmbeddedEngine.open(options(folder()));
    try {
      await engine.command(
        `CREATE TABLE ${engine.table('t')} (id Int64, s String, at DateTime64(6, 'UTC')) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`,
      );
      const rows = '{"id":1,"s":"a","at":"2026-01-02T03:04:05.123Z"}\n{"id":2,"s":"b","at":"2026-01-02T03:04:06Z"}';
      await engine.insert('t', rows, { deduplicationToken: 'batch-1' });
      await engine.insert('t', rows, { deduplicationToken: 'batch-1' });
      await engine.insert('t', '{"id":3,"s":"c","at":"2026-01-03T00:00:00Z"}', { deduplicationToken: 'batch-2' });
      const { sql, params } = ch`SELECT id, s, at FROM ${raw(engine.table('t'))} WHERE s != ${'c'} ORDER BY id`.compile();
      expect(await engine.query(sql, params)).toEqual([
        { id: 1, s: 'a', at: '2026-01-02T03:04:05.123000Z' },
        { id: 2, s: 'b', at: '2026-01-02T03:04:06.000000Z' },
      ]);
      await expect(engine.query('SELEC 1')).rejects.toBeInstanceOf(AnalyticsError);
      await expect(engine.insert('t', '{}', { deduplicationToken: "x'; DROP TABLE t" })).rejects.toThrow(/invalid deduplication token/);
    } finally {
      await engine.close();
    }
  });

  it('runs parameterised queries side by side: one sees the other running', async () => {
    const engine = await EmbeddedEngine.open(options(folder()));
    try {
      // Two seconds of sleeping, one row a block, with a parameter.
      const marker = `overlap-${Date.now()}`;
      let slowDone = false;
      const slow = engine
        .query(`SELECT sleepEachRow(0.1), {m:String} AS m FROM numbers(20) SETTINGS max_block_size = 1`, { m: marker })
        .finally(() => (slowDone = true));
      let seen = 0;
      while (seen === 0 && !slowDone) {
        const [row] = await engine.query<{ n: number }>(
          `SELECT count() AS n FROM system.processes WHERE query LIKE {like:String} AND query NOT LIKE '%system.processes%'`,
          { like: `%${marker}%` },
        );
        seen = row!.n;
      }
      expect(slowDone).toBe(false);
      expect(seen).toBe(1);
      expect(await slow).toHaveLength(20);
    } finally {
      await engine.close();
    }
  });
});

describe('one folder, several processes', () => {
  it('reaches the folder through the process that owns it, and takes it over when that one dies', async () => {
    const shared = folder();
    const owner = runHoglet([shared], {}, ['--import', 'tsx', 'test/platform/analytics-host-child.ts']);
    try {
      await owner.waitFor(/owner embedded/, 60_000);
      const guest = await FolderEngine.open(options(shared), log);
      try {
        expect(guest.kind).toBe('guest');
        expect(await guest.query(`SELECT sum(n) AS s FROM ${guest.table('numbers')}`)).toEqual([{ s: 3 }]);
        // Rows go to the owner as they are, after the request (not escaped into its JSON).
        await guest.insert('numbers', '{"n":4}\n{"n":5}', { deduplicationToken: 'guest-1' });
        await guest.command(
          `CREATE TABLE ${guest.table('texts')} (s String) ENGINE = MergeTree ORDER BY s SETTINGS non_replicated_deduplication_window = 100`,
        );
        const texts = ['a line\nand "quoted" ✓ é', '{"n":6}', ''];
        const rows = texts.map((text) => JSON.stringify({ s: text })).join('\n');
        await guest.insert('texts', rows, { deduplicationToken: 'guest-2' });
        await guest.insert('texts', rows, { deduplicationToken: 'guest-2' }); // a repeat: dropped
        expect(await guest.query(`SELECT s FROM ${guest.table('texts')} ORDER BY s`)).toEqual([...texts].sort().map((s) => ({ s })));
        // A JSON object for a String column is stored as its text, as the embedded engine stores it (events' properties).
        const objects = ['{}', '{"k\\"ey":"\u2028 é 😀\\n","n":{"a":[1,{}]},"e":"\\u00e9"}'];
        await guest.command(`CREATE TABLE ${guest.table('objects')} (i UInt8, s String) ENGINE = MergeTree ORDER BY i`);
        // As pieces of lines, as a copy of several outbox rows sends them.
        await guest.insert(
          'objects',
          objects.map((text, i) => `{"i":${i},"s":${text}}`),
        );
        expect(await guest.query(`SELECT s FROM ${guest.table('objects')} ORDER BY i`)).toEqual(objects.map((s) => ({ s })));
        await expect(guest.query('SELECT nonsense(')).rejects.toBeInstanceOf(AnalyticsError);
        owner.child.kill('SIGKILL');
        await owner.exited;
        // The next call finds the owner gone and the folder free: this process owns it now.
        expect(await guest.query(`SELECT sum(n) AS s FROM ${guest.table('numbers')}`)).toEqual([{ s: 12 }]);
        expect(guest.kind).toBe('embedded');
      } finally {
        await guest.close();
      }
    } finally {
      owner.child.kill('SIGKILL');
    }
  });
});
