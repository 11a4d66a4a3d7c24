/**
 * The PostgreSQL section of the bench (bench/postgres-bench.ts, postgres-workers.ts, postgres-floor.ts): which
 * sections a run prints, that its posthog-node batches are events capture accepts, and that the
 * floor writes every row it was given back as it was read. The floor runs on PostgreSQL in both
 * suites (the bench's own database: DATABASE_URL or the suite's default one).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchPostgresUrl, benchSections, describeUrl, storesOnlyEventsPerSecond } from '../../bench/postgres-bench.js';
import { posthogNodeBatches } from '../../bench/posthog-node-batches.js';
import { backendCpuSeconds, cpuSecondsSince, drainedNow, workerCounts } from '../../bench/postgres-workers.js';
import { statusMb } from '../../bench/postgres-worker-processes.js';
import { multiRowInsertSql, postgresFloor, readTable, rowsPerStatement } from '../../bench/postgres-floor.js';
import { extractEvents } from '../../src/ingestion/core/index.js';

describe('bench sections', () => {
  it('runs every section by default, one alone with --postgres or --analytics, and leaves one out with --no-…', () => {
    expect(benchSections([])).toEqual({ sqlite: true, postgres: 'if-reachable', analytics: true });
    expect(benchSections(['--postgres'])).toEqual({ sqlite: false, postgres: 'required', analytics: false });
    expect(benchSections(['--analytics'])).toEqual({ sqlite: false, postgres: 'off', analytics: true });
    expect(benchSections(['--no-postgres'])).toEqual({ sqlite: true, postgres: 'off', analytics: true });
    expect(benchSections(['--no-analytics'])).toEqual({ sqlite: true, postgres: 'if-reachable', analytics: false });
    expect(benchSections(['--no-postgres', '--no-analytics'])).toEqual({ sqlite: true, postgres: 'off', analytics: false });
    expect(() => benchSections(['--postgress'])).toThrow(/unknown argument --postgress/);
    expect(() => benchSections(['--postgres', '--no-postgres'])).toThrow(/alone/);
    expect(() => benchSections(['--analytics', '--postgres'])).toThrow(/alone/);
  });

  it('measures one and two workers, and as many as the cores when there are more', () => {
    expect(workerCounts(1)).toEqual([1, 2]);
    expect(workerCounts(2)).toEqual([1, 2]);
    expect(workerCounts(8)).toEqual([1, 2, 8]);
  });

  it("bounds a round by the stores' own CPU: the cores over what PostgreSQL and ClickHouse took an event", () => {
    // 100,000 events for 2 s of PostgreSQL and 4 s of ClickHouse: 60 µs an event, 33,333/s on 2 cores.
    expect(storesOnlyEventsPerSecond({ processed: 100_000, postgresCpuSeconds: 2, serverCpuSeconds: 4 }, 2)).toBeCloseTo(33_333.33, 1);
    expect(storesOnlyEventsPerSecond({ processed: 100_000, postgresCpuSeconds: 2, serverCpuSeconds: 4 }, 4)).toBeCloseTo(66_666.67, 1);
    expect(storesOnlyEventsPerSecond({ processed: 100_000, postgresCpuSeconds: Number.NaN, serverCpuSeconds: 4 }, 2)).toBeUndefined();
    expect(storesOnlyEventsPerSecond({ processed: 100_000, postgresCpuSeconds: 0, serverCpuSeconds: 0 }, 2)).toBeUndefined();
    expect(storesOnlyEventsPerSecond({ processed: 0, postgresCpuSeconds: 1, serverCpuSeconds: 1 }, 2)).toBeUndefined();
  });

  it("reads a worker's resident memory and its peak from /proc, and NaN without a process", () => {
    const rss = statusMb(process.pid, 'VmRSS');
    const peak = statusMb(process.pid, 'VmHWM');
    // This process holds at least what its own heap uses, in MB.
    expect(rss).toBeGreaterThanOrEqual(process.memoryUsage().heapUsed / 2 ** 20);
    expect(peak).toBeGreaterThanOrEqual(rss);
    expect(statusMb(undefined, 'VmRSS')).toBeNaN();
  });

  it('uses DATABASE_URL, else the suite database, and prints no password', () => {
    expect(benchPostgresUrl({ DATABASE_URL: ' postgres://u:secret@db.example:6543/x ' })).toBe('postgres://u:secret@db.example:6543/x');
    expect(benchPostgresUrl({})).toBe('postgres://postgres@127.0.0.1:5432/test');
    expect(describeUrl('postgres://u:secret@db.example:6543/x')).toBe('db.example:6543/x');
  });
});

describe("bench PostgreSQL backends' CPU", () => {
  const url = benchPostgresUrl();
  const watcher = new pg.Client({ connectionString: url });
  const worker = new pg.Client({ connectionString: url });
  beforeAll(async () => {
    await watcher.connect();
    await worker.connect();
  });
  afterAll(async () => {
    await watcher.end();
    await worker.end();
  });

  it("counts the CPU another connection's backend spent on the database, not the reader's own", async () => {
    const start = await backendCpuSeconds(watcher);
    const workerPid = (await worker.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const watcherPid = (await watcher.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    expect(start?.has(workerPid)).toBe(true);
    expect(start?.has(watcherPid)).toBe(false);
    // Some CPU seconds of work on the other connection's backend (ticks are 10 ms).
    await worker.query('select count(*) from generate_series(1, 20000000)');
    const end = await backendCpuSeconds(watcher);
    expect(cpuSecondsSince(start, end)).toBeGreaterThan(0.05);
    expect(cpuSecondsSince(undefined, end)).toBeNaN();
  });
});

describe("the worker rounds' poll", () => {
  const client = new pg.Client({ connectionString: benchPostgresUrl() });
  const schema = `bench_poll_${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.query(`set search_path to ${schema}`);
    await client.query('create table ingestion_queue (id bigserial primary key, event_count int not null)');
    await client.query('create table analytics_outbox (id bigserial primary key)');
  });
  afterAll(async () => {
    await client.query(`drop schema ${schema} cascade`);
    await client.end();
  });

  it('says whether a queued row or an outbox row is left', async () => {
    expect(await drainedNow(client)).toEqual({ queueEmpty: true, outboxEmpty: true });
    await client.query('insert into ingestion_queue (event_count) values (100), (100)');
    expect(await drainedNow(client)).toEqual({ queueEmpty: false, outboxEmpty: true });
    await client.query('delete from ingestion_queue where id = (select min(id) from ingestion_queue)');
    expect(await drainedNow(client)).toEqual({ queueEmpty: false, outboxEmpty: true });
    await client.query('delete from ingestion_queue');
    await client.query('insert into analytics_outbox default values');
    expect(await drainedNow(client)).toEqual({ queueEmpty: true, outboxEmpty: false });
  });
});

describe('bench posthog-node batches', () => {
  it('are batches of 100 events that capture accepts, with each round its own distinct ids and groups', () => {
    const bodies = posthogNodeBatches('phc_test', 1000, 'r2-');
    expect(bodies).toHaveLength(10);
    const events = bodies.flatMap((body) => {
      const extracted = extractEvents({ value: JSON.parse(body) as never, endpoint: 'batch' });
      if (!extracted.ok) throw new Error('rejected');
      return extracted.events;
    });
    expect(events).toHaveLength(1000);
    expect(events.every((e) => e.distinctId.startsWith('r2-'))).toBe(true);
    const identify = events.find((e) => e.event === '$identify')!;
    expect(String(identify.properties.$anon_distinct_id)).toMatch(/^r2-anon-/);
    const grouped = events.find((e) => e.properties.$groups)!;
    expect(Object.values(grouped.properties.$groups as Record<string, string>).every((key) => key.startsWith('r2-'))).toBe(true);
  });
});

describe('bench PostgreSQL floor', () => {
  const url = benchPostgresUrl();
  const schema = `bench_floor_test_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });

  beforeAll(async () => {
    await client.connect();
    await client.query(`create schema "${schema}"`);
    await client.query(
      `create table "${schema}".rows (id bigserial primary key, team_id bigint not null, payload jsonb not null, at timestamptz, note text, unique (team_id, note))`,
    );
    await client.query(
      `insert into "${schema}".rows (team_id, payload, at, note)
       select i % 3, jsonb_build_object('n', i, 'tags', jsonb_build_array('a', i)), now() - i * interval '1 second', case when i % 5 = 0 then null else 'note ' || i end
       from generate_series(1, 2500) as i`,
    );
  });
  afterAll(async () => {
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  });

  it('keeps statements under PostgreSQL parameter limit', () => {
    expect(rowsPerStatement(5)).toBe(1000);
    expect(rowsPerStatement(100) * 100).toBeLessThanOrEqual(65_535);
    expect(multiRowInsertSql('"s"."t"', ['a', 'b'], 2)).toBe('insert into "s"."t" ("a", "b") values ($1, $2), ($3, $4)');
  });

  it('writes every row again, as read, in a scratch schema it drops', async () => {
    const table = await readTable(client, schema, 'rows', 'order by id');
    expect(table.columns).toEqual(['id', 'team_id', 'payload', 'at', 'note']);
    expect(table.rows).toHaveLength(2500);
    const floor = await postgresFloor(url, schema, [table], 2500, 3);
    expect(floor.rows).toEqual({ rows: 2500 });
    expect(floor.transactions).toBe(3);
    expect(floor.eventsPerSecond).toBeGreaterThan(0);
    expect(floor.scratch).toMatch(/^bench_floor_/);
    const left = await client.query('select count(*)::int as n from information_schema.schemata where schema_name = $1', [floor.scratch]);
    expect(left.rows[0].n).toBe(0);
  });
});
