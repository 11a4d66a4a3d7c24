/**
 * `npx tsx bench/engine-overlap.ts [threads] [rows]`: whether parameterized queries of the embedded
 * engine run side by side. Four CPU-bound queries with parameters, each the median of three runs:
 * one after the other through the engine, all at once through the engine (values inlined), and all
 * at once bound by chdb (what the engine did before: chdb runs bound queries one at a time).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'chdb';
import { EmbeddedEngine } from '../src/platform/analytics/embedded-engine.js';
import { SESSION_SETTINGS } from '../src/platform/analytics/engine.js';

const threads = Number(process.argv[2] ?? 1);
const rows = Number(process.argv[3] ?? 100_000_000);
const QUERIES = 4;
const sql = 'SELECT count() AS n FROM numbers({rows:UInt64}) WHERE cityHash64(number, {seed:Int64}) % 7 = {rest:Int64}';
const params = (i: number) => ({ rows, seed: i, rest: 3 });

async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[1]!;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-overlap-'));
const folder = path.join(dir, 'clickhouse');
const engine = await EmbeddedEngine.open({ path: folder, maxMemoryBytes: 1024 * 1024 * 1024, maxThreads: threads });
// The same folder's engine, bound the way the engine bound before (same-folder sessions share it).
const bound = new Session(folder, {
  connectionArgs: [`--max_threads=${threads}`, ...Object.entries(SESSION_SETTINGS).map(([name, value]) => `--${name}=${value}`)],
});
try {
  const indices = [...Array(QUERIES).keys()];
  await engine.query(sql, params(0)); // warm-up
  const one = await median(() => engine.query(sql, params(0)));
  const sequential = await median(async () => {
    for (const i of indices) await engine.query(sql, params(i));
  });
  const inlined = await median(() => Promise.all(indices.map((i) => engine.query(sql, params(i)))));
  const boundAtOnce = await median(() => Promise.all(indices.map((i) => bound.queryBindAsync(sql, params(i), { format: 'JSONEachRow' }))));
  const fmt = (ms: number) => `${Math.round(ms).toLocaleString('en-US')} ms`;
  console.log(
    `max_threads=${threads}, ${QUERIES} queries over ${rows.toLocaleString('en-US')} rows each, ${os.availableParallelism()} cores`,
  );
  console.log(`one query:                      ${fmt(one)}`);
  console.log(`${QUERIES} one after the other:         ${fmt(sequential)}`);
  console.log(`${QUERIES} at once, inlined (now):      ${fmt(inlined)}`);
  console.log(`${QUERIES} at once, bound (before):     ${fmt(boundAtOnce)}`);
} finally {
  bound.close();
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
