/**
 * The worker rounds of the PostgreSQL bench (bench/postgres-bench.ts): a fresh stream queued
 * through /batch/ as posthog-node sends it, then drained by `hoglet worker` processes and timed,
 * and the rows one worker stored, for its PostgreSQL floor.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { POSTGRES_PARTITIONS } from '../src/ingestion/core/partition.js';
import { cpuSecondsOf } from './harness.js';
import { postgresFloor, readTable, type FloorTable, type PostgresFloor } from './postgres-floor.js';
import {
  dropHeld,
  holdQueued,
  ingestionLeases,
  releaseHeld,
  sharesSettled,
  WRITTEN_SINCE_MARK,
  writeMark,
} from './postgres-held-stream.js';
import {
  IDLE_SETTLE_MS,
  machineTicks,
  startWorkers,
  statusMb,
  stopWorkers,
  traceOf,
  type WorkerTrace,
} from './postgres-worker-processes.js';
import { posthogNodeBatches, sendBatches } from './posthog-node-batches.js';

/** Events queued and outbox rows not yet copied to ClickHouse. */
export async function backlog(client: pg.Client): Promise<{ queued: number; outbox: number }> {
  const result = await client.query<{ queued: string; outbox: string }>(
    'select (select coalesce(sum(event_count), 0) from ingestion_queue) as queued, (select count(*) from analytics_outbox) as outbox',
  );
  return { queued: Number(result.rows[0]!.queued), outbox: Number(result.rows[0]!.outbox) };
}

/**
 * Whether anything is left to store: a queued row or an outbox row, each found by its primary key's
 * index. The rounds poll this every 50 ms; summing the queue instead scanned its whole heap, dead
 * rows of the drain included, and took up to half a core from the workers it measured
 * (docs/benchmarks.md, 2026-12-01).
 */
export async function drainedNow(client: pg.Client): Promise<{ queueEmpty: boolean; outboxEmpty: boolean }> {
  const result = await client.query<{ queued: boolean; outbox: boolean }>(
    'select exists (select 1 from ingestion_queue order by id limit 1) as queued, exists (select 1 from analytics_outbox order by id limit 1) as outbox',
  );
  return { queueEmpty: !result.rows[0]!.queued, outboxEmpty: !result.rows[0]!.outbox };
}

export async function waitFor(check: () => Promise<boolean>, seconds: number, what: string): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface DrainFigure {
  workers: number;
  eventsPerSecond: number;
  /** Events per CPU second of the worker processes over the timed part (warm, idle before it). */
  eventsPerCpuSecond: number;
  processed: number;
  queued: number;
  seconds: number;
  /** From the timed start to the first look at an empty queue (the rest of `seconds` is the outbox's copy to ClickHouse). */
  queueSeconds: number;
  /** The share of the machine's cores busy during the drain (every process: PostgreSQL too); undefined off Linux. */
  machineBusy: number | undefined;
  /** Each worker's peak resident memory (VmHWM), MB; NaN off Linux. */
  peakRssMb: number[];
  /** Each worker's resident memory a few seconds after the drain, idle, MB; NaN off Linux. */
  idleRssMb: number[];
  /** Each worker's round, from its log (BENCH_WORKER_TRACE=1 only). */
  traces?: WorkerTrace[];
  /**
   * CPU seconds over the timed part of the PostgreSQL backends connected to the bench's database
   * (the bench's own polling connection aside); NaN when PostgreSQL's processes cannot be read
   * (not on this machine, or off Linux). Backends that exit during the part are not counted.
   */
  postgresCpuSeconds: number;
  /** CPU seconds of the server over the timed part (it hosts the embedded ClickHouse the workers copy to); NaN without its pid. */
  serverCpuSeconds: number;
}

/** A round's two streams, each queued and set aside beforehand (postgres-held-stream.ts). */
export interface RoundStreams {
  /** Puts the warm-up stream in the queue. */
  warmUp(): Promise<void>;
  /** Puts the measured stream in the queue in one transaction; resolves once it is committed, with its events. */
  measured(): Promise<number>;
}

/** How long workers may take to settle their shares of the partitions (a holder gives back at its renewal, a third of a lease). */
const SHARES_SECONDS = 60;

/**
 * Times `count` workers, warm and settled, on the measured stream. They start on an empty queue;
 * once each holds its share of the partitions, the warm-up stream is put in the queue and drained
 * (every worker takes part: its partitions hold some of it); once the queue and the outbox are
 * empty and the shares still held, the measured stream is put in the queue in one transaction,
 * and the time runs from its commit to the first look (every 50 ms) at an empty queue and outbox:
 * every event stored in ClickHouse.
 */
export async function timeRound(
  url: string,
  count: number,
  env: Record<string, string>,
  maxSeconds: number,
  streams: RoundStreams,
  nodeArgs: readonly string[] = [],
  serverPid?: number,
): Promise<DrainFigure> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // Tracing logs every batch (debug level): a few lines a second, left out of the A/B runs all the same.
  const tracing = process.env.BENCH_WORKER_TRACE === '1';
  const workers = startWorkers(
    count,
    { ...env, DATABASE_URL: url, ...(tracing ? { LOG_LEVEL: 'debug' } : {}) },
    nodeArgs,
    tracing ? () => ({ lines: [] }) : undefined,
  );
  const running = () => {
    const exited = workers.find(({ child }) => child.exitCode !== null);
    if (exited) throw new Error(`a worker exited ${exited.child.exitCode}:\n${exited.output()}`);
  };
  const settled = async () => {
    running();
    return sharesSettled(await ingestionLeases(client), count, POSTGRES_PARTITIONS, Date.now());
  };
  const drained = async () => {
    running();
    const { queueEmpty, outboxEmpty } = await drainedNow(client);
    return queueEmpty && outboxEmpty;
  };
  try {
    await waitFor(settled, SHARES_SECONDS, `${count} worker(s) to hold their partitions`);
    await streams.warmUp();
    await waitFor(drained, maxSeconds, 'the warm-up stream to be drained');
    await waitFor(settled, SHARES_SECONDS, `${count} worker(s) to hold their partitions after the warm-up`);
    const initial = await streams.measured();
    const startedAt = process.hrtime.bigint();
    const startedAtMs = Date.now();
    const workerCpuAtStart = workers.map(({ child }) => cpuSecondsOf(child.pid));
    const serverCpuAtStart = cpuSecondsOf(serverPid);
    const postgresAtStart = await backendCpuSeconds(client);
    const ticksAtStart = machineTicks();
    const deadline = Date.now() + maxSeconds * 1000;
    const elapsed = () => Number(process.hrtime.bigint() - startedAt) / 1e9;
    let now = await drainedNow(client);
    let queueSeconds = NaN;
    while (!now.queueEmpty || !now.outboxEmpty) {
      if (Date.now() > deadline) break;
      running();
      await new Promise((resolve) => setTimeout(resolve, 50));
      now = await drainedNow(client);
      if (now.queueEmpty && Number.isNaN(queueSeconds)) queueSeconds = elapsed();
    }
    const seconds = elapsed();
    const ticks = machineTicks();
    const workerCpu = workers.map(({ child }, i) => cpuSecondsOf(child.pid) - workerCpuAtStart[i]!);
    const serverCpuSeconds = cpuSecondsOf(serverPid) - serverCpuAtStart;
    const postgresCpuSeconds = cpuSecondsSince(postgresAtStart, await backendCpuSeconds(client));
    // Counted once the timed part is read: what the round left (nothing, unless it ran out of time).
    const processed = initial - (now.queueEmpty ? 0 : (await backlog(client)).queued);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const idleRssMb = workers.map(({ child }) => statusMb(child.pid, 'VmRSS'));
    const peakRssMb = workers.map(({ child }) => statusMb(child.pid, 'VmHWM'));
    return {
      workers: count,
      eventsPerSecond: processed / seconds,
      eventsPerCpuSecond: processed / workerCpu.reduce((sum, value) => sum + value, 0),
      processed,
      queued: initial,
      seconds,
      queueSeconds,
      machineBusy:
        ticks && ticksAtStart && ticks.total > ticksAtStart.total
          ? (ticks.busy - ticksAtStart.busy) / (ticks.total - ticksAtStart.total)
          : undefined,
      peakRssMb,
      idleRssMb,
      postgresCpuSeconds,
      serverCpuSeconds,
      ...(tracing ? { traces: workers.map(({ log }, i) => traceOf(log!, startedAtMs, workerCpu[i]!)) } : {}),
    };
  } finally {
    await stopWorkers(workers);
    await client.end();
  }
}

/**
 * CPU seconds so far of each PostgreSQL backend connected to `client`'s database but its own, by
 * pid (read from /proc: PostgreSQL on this machine); undefined when one cannot be read.
 */
export async function backendCpuSeconds(client: pg.Client): Promise<Map<number, number> | undefined> {
  const { rows } = await client.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
  const seconds = new Map<number, number>();
  for (const { pid } of rows) {
    const value = cpuSecondsOf(pid);
    if (Number.isNaN(value)) return undefined;
    seconds.set(pid, value);
  }
  return seconds;
}

/** The CPU the backends read at `end` spent since `start` (a backend new since then: all of its CPU). */
export function cpuSecondsSince(start: Map<number, number> | undefined, end: Map<number, number> | undefined): number {
  if (!start || !end) return NaN;
  let sum = 0;
  for (const [pid, value] of end) sum += value - (start.get(pid) ?? 0);
  return sum;
}

/** Starts one worker on what is queued and waits, untimed, until it is stored (the queue and the outbox empty). */
export async function drainQueued(url: string, env: Record<string, string>, maxSeconds: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const workers = startWorkers(1, { ...env, DATABASE_URL: url });
  try {
    await waitFor(
      async () => {
        const exited = workers.find(({ child }) => child.exitCode !== null);
        if (exited) throw new Error(`a worker exited ${exited.child.exitCode}:\n${exited.output()}`);
        const { queueEmpty, outboxEmpty } = await drainedNow(client);
        return queueEmpty && outboxEmpty;
      },
      maxSeconds,
      'the queue to be drained',
    );
  } finally {
    await stopWorkers(workers);
    await client.end();
  }
}

/** The tables a worker batch writes rows into (besides the outbox; definitions left out: a few rows). */
const WORKER_TABLES = ['persons', 'person_distinct_ids', 'personless_distinct_ids', 'groups', 'person_overrides', 'event_uuids'] as const;

/**
 * The worker's rows for its floor: what it stored in `WORKER_TABLES` for the measured stream (the
 * rows written since `mark`, writeMark: not the warm-up's, nor earlier rounds'), and its outbox
 * rows (one a batch of 1000 events, copied to ClickHouse and deleted since) made again from the
 * queued events' JSON, read before the drain: about the size of the event lines a worker writes there.
 */
export async function workerFloorTables(client: pg.Client, queued: FloorTable, transactions: number, mark: string): Promise<FloorTable[]> {
  const tables: FloorTable[] = [];
  for (const name of WORKER_TABLES) tables.push(await readTable(client, 'public', name, WRITTEN_SINCE_MARK, [mark]));
  const outbox = await readTable(client, 'public', 'analytics_outbox', 'where false');
  const payload = queued.columns.indexOf('payload');
  const rows: Array<Array<string | null>> = [];
  for (let k = 0; k < transactions; k++) {
    const share = queued.rows.slice(
      Math.floor((k * queued.rows.length) / transactions),
      Math.floor(((k + 1) * queued.rows.length) / transactions),
    );
    const values: Record<string, string> = {
      id: String(k + 1),
      token: randomUUID(),
      events: share.map((row) => row[payload]).join('\n'),
      person_overrides: '',
      created_at: new Date().toISOString(),
    };
    rows.push(outbox.columns.map((column) => values[column] ?? null));
  }
  tables.push({ name: 'analytics_outbox', columns: outbox.columns, rows });
  return tables;
}

/** The worker counts measured: one, two, and the machine's parallelism when it is more than two. */
export function workerCounts(parallelism: number): number[] {
  return parallelism > 2 ? [1, 2, parallelism] : [1, 2];
}

/** Queue rows with ids in (after, upTo], and how many events they hold. */
export async function queueRows(client: pg.Client, after: number, upTo: number): Promise<{ table: FloorTable; events: number }> {
  const table = await readTable(client, 'public', 'ingestion_queue', 'where id > $1 and id <= $2 order by id', [after, upTo]);
  const count = table.columns.indexOf('event_count');
  return { table, events: table.rows.reduce((sum, row) => sum + Number(row[count]), 0) };
}

export async function lastQueueId(client: pg.Client): Promise<number> {
  const result = await client.query<{ id: string | null }>('select max(id) as id from ingestion_queue');
  return Number(result.rows[0]!.id ?? 0);
}

/** The tables a round's streams are set aside in until the workers are ready for them. */
const HELD_WARM_UP = 'bench_held_warm_up';
const HELD_MEASURED = 'bench_held_measured';

/** Queues `bodies` through `serverUrl`'s /batch/ (on an empty queue) and sets the rows aside in `held`; returns their events. */
async function queueAndHold(
  client: pg.Client,
  serverUrl: string,
  bodies: readonly string[],
  events: number,
  held: string,
): Promise<number> {
  const before = await lastQueueId(client);
  await sendBatches(serverUrl, bodies);
  await waitFor(async () => (await backlog(client)).queued >= events, 60, 'the queue to fill');
  return holdQueued(client, held, before);
}

/**
 * The worker rounds, one per count (the first must be 1: its rows make the floor), each on fresh
 * streams (distinct ids of their own) queued through `serverUrl`'s /batch/ and set aside first: a
 * warm-up stream of `warmUpEvents` and the measured one of `events`, timed warm (timeRound); and
 * the floor of the rows the one worker stored for the measured stream.
 */
export async function workerRounds(options: {
  url: string;
  serverUrl: string;
  token: string;
  env: Record<string, string>;
  events: number;
  warmUpEvents: number;
  counts: readonly number[];
  drainSeconds: number;
  /** Node options of the worker processes besides the server's (`--cpu-prof`). */
  nodeArgs?: readonly string[];
  /** The server's pid, for its CPU over each timed part. */
  serverPid?: number;
}): Promise<{ drains: DrainFigure[]; workerFloor: PostgresFloor }> {
  const { url, serverUrl, token, events, warmUpEvents } = options;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const drains: DrainFigure[] = [];
    let workerFloor: PostgresFloor | undefined;
    for (const count of options.counts) {
      const measured = await queueAndHold(client, serverUrl, posthogNodeBatches(token, events, `r${count}-`), events, HELD_MEASURED);
      await queueAndHold(client, serverUrl, posthogNodeBatches(token, warmUpEvents, `w${count}-`), warmUpEvents, HELD_WARM_UP);
      const queued = count === 1 ? await readTable(client, 'public', HELD_MEASURED, 'order by id') : undefined;
      let mark = '';
      const streams: RoundStreams = {
        warmUp: () => releaseHeld(client, HELD_WARM_UP),
        measured: async () => {
          mark = await writeMark(client);
          await releaseHeld(client, HELD_MEASURED);
          return measured;
        },
      };
      const drain = await timeRound(url, count, options.env, options.drainSeconds, streams, options.nodeArgs, options.serverPid);
      drains.push(drain);
      await dropHeld(client, HELD_WARM_UP);
      await dropHeld(client, HELD_MEASURED);
      // What a round left at its deadline is not the next round's.
      if (drain.processed < drain.queued) await client.query('delete from ingestion_queue');
      if (queued) {
        const transactions = Math.ceil(measured / 1000);
        const tables = await workerFloorTables(client, queued, transactions, mark);
        workerFloor = await postgresFloor(url, 'public', tables, measured, transactions);
      }
    }
    if (!workerFloor) throw new Error('the worker rounds must start with one worker');
    return { drains, workerFloor };
  } finally {
    await client.end();
  }
}
