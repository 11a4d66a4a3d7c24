/**
 * The worker rounds of the PostgreSQL bench (bench/postgres-bench.ts): a fresh stream queued
 * through /batch/ as posthog-node sends it, then drained by `hoglet worker` processes and timed,
 * and the rows one worker stored, for its PostgreSQL floor.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { cpuSecondsOf, entryArguments, ROOT, SERVER_ENVIRONMENT, SERVER_NODE_OPTIONS } from './harness.js';
import { postgresFloor, readTable, type FloorTable, type PostgresFloor } from './postgres-floor.js';
import { realisticWorkload } from './workload.js';

/** A realistic stream (bench/workload.ts) as posthog-node sends it: batches of 100, distinct ids under `prefix`. */
export function posthogNodeBatches(token: string, events: number, prefix: string): string[] {
  const rows = realisticWorkload(0, events);
  const bodies: string[] = [];
  for (let i = 0; i < rows.length; i += 100) {
    const batch = rows.slice(i, i + 100).map(({ payload }) => {
      const properties: Record<string, unknown> = {
        ...(payload.properties as Record<string, unknown>),
        $lib: 'posthog-node',
        $lib_version: '4.18.0',
      };
      // Each round's persons and groups are new ones: every round does the same work.
      if (typeof properties.$anon_distinct_id === 'string') properties.$anon_distinct_id = `${prefix}${properties.$anon_distinct_id}`;
      if (typeof properties.$group_key === 'string') properties.$group_key = `${prefix}${properties.$group_key}`;
      const groups = properties.$groups as Record<string, string> | undefined;
      if (groups) properties.$groups = Object.fromEntries(Object.entries(groups).map(([type, key]) => [type, `${prefix}${key}`]));
      return {
        type: 'capture',
        event: payload.event,
        distinct_id: `${prefix}${payload.distinct_id}`,
        properties,
        timestamp: payload.timestamp,
        uuid: payload.uuid,
        library: 'posthog-node',
        library_version: '4.18.0',
      };
    });
    bodies.push(JSON.stringify({ api_key: token, batch }));
  }
  return bodies;
}

/** POSTs `body` to /batch/; again when the connection was closed under it (an idle keep-alive connection the server timed out). */
async function postBatch(url: string, body: string, attempts = 3): Promise<Response> {
  try {
    return await fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  } catch (error) {
    // A repeat stores nothing twice: the events carry their uuids.
    if (attempts <= 1) throw error;
    return postBatch(url, body, attempts - 1);
  }
}

/** Sends `bodies` to /batch/, a few at a time, each answered 200. */
export async function sendBatches(url: string, bodies: readonly string[]): Promise<void> {
  let next = 0;
  const sender = async () => {
    while (next < bodies.length) {
      const res = await postBatch(url, bodies[next++]!);
      if (res.status !== 200) throw new Error(`/batch/ answered ${res.status}: ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
}

/** Events queued and outbox rows not yet copied to ClickHouse. */
export async function backlog(client: pg.Client): Promise<{ queued: number; outbox: number }> {
  const result = await client.query<{ queued: string; outbox: string }>(
    'select (select coalesce(sum(event_count), 0) from ingestion_queue) as queued, (select count(*) from analytics_outbox) as outbox',
  );
  return { queued: Number(result.rows[0]!.queued), outbox: Number(result.rows[0]!.outbox) };
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
  /** Events per CPU second of the worker processes (their start included: a rough figure). */
  eventsPerCpuSecond: number;
  processed: number;
  queued: number;
  seconds: number;
  /** The share of the machine's cores busy during the drain (every process: PostgreSQL too); undefined off Linux. */
  machineBusy: number | undefined;
  /** Each worker's peak resident memory (VmHWM), MB; NaN off Linux. */
  peakRssMb: number[];
  /** Each worker's resident memory a few seconds after the drain, idle, MB; NaN off Linux. */
  idleRssMb: number[];
  /** Each worker's round, from its log (BENCH_WORKER_TRACE=1 only). */
  traces?: WorkerTrace[];
}

/** One worker's drain as its debug log tells it; times in seconds from the timed start. */
export interface WorkerTrace {
  cpuSeconds: number;
  events: number;
  batches: number;
  /** Summed batch times (read ahead to commit, as the worker logs them). */
  batchSeconds: number;
  preparedAhead: number;
  /** Batches run again after a conflict with another writer. */
  retried: number;
  /** Batches rolled back because a partition was taken, or rows were gone, or run one by one. */
  rolledBack: number;
  /** Each change of the partitions held: when, and how many after it. */
  partitions: Array<{ at: number; held: number }>;
  /** The first and last batch committed. */
  firstBatchAt: number;
  lastBatchAt: number;
  /** The warnings logged, when and what (the database's error code and message when one). */
  warnings: string[];
}

/** A worker's JSON log lines kept for its trace (debug level), or only the tail for errors. */
interface WorkerLog {
  lines: Array<Record<string, unknown>>;
}

function traceOf(log: WorkerLog, startedAtMs: number, cpuSeconds: number): WorkerTrace {
  const trace: WorkerTrace = {
    cpuSeconds,
    events: 0,
    batches: 0,
    batchSeconds: 0,
    preparedAhead: 0,
    retried: 0,
    rolledBack: 0,
    partitions: [],
    firstBatchAt: NaN,
    lastBatchAt: NaN,
    warnings: [],
  };
  for (const line of log.lines) {
    const at = (Number(line.time) - startedAtMs) / 1000;
    if (Number(line.level) >= 40) {
      const err = line.err as { message?: string; code?: string } | undefined;
      const why = [line.code ?? err?.code, line.reason ?? err?.message, line.rows === undefined ? '' : `${String(line.rows)} rows`];
      trace.warnings.push(`${at.toFixed(2)} s ${String(line.msg)} (${why.filter(Boolean).join('; ')})`);
    }
    switch (line.msg) {
      case 'ingestion batch processed':
        trace.batches++;
        trace.events += Number(line.events);
        trace.batchSeconds += Number(line.ms) / 1000;
        if (line.preparedAhead) trace.preparedAhead++;
        if (Number.isNaN(trace.firstBatchAt)) trace.firstBatchAt = at;
        trace.lastBatchAt = at;
        break;
      case 'ingestion partitions changed':
        trace.partitions.push({ at, held: (line.partitions as unknown[]).length });
        break;
      case 'batch lost a race with a concurrent writer; retrying it':
        trace.retried++;
        break;
      case 'ingestion partition taken by another worker; batch rolled back':
      case 'batch rolled back: some of its queue rows were deleted meanwhile':
      case 'batch failed; processing its events one by one':
        trace.rolledBack++;
        break;
    }
  }
  return trace;
}

/** A /proc/<pid>/status field in kB (VmRSS, VmHWM) as MB; NaN when unreadable (off Linux, gone). */
export function statusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** How long a drained worker is left idle before its RSS is read: its last batch's garbage collected or not. */
const IDLE_SETTLE_MS = 5000;

/** Busy and total CPU time of the whole machine so far (Linux's /proc/stat), in clock ticks. */
function machineTicks(): { busy: number; total: number } | undefined {
  try {
    // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user and nice).
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    // idle and iowait are the machine waiting; everything else is work.
    return { busy: total - fields[3]! - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** `hoglet worker` processes of this checkout (compiled when the bench runs compiled). */
function startWorkers(
  count: number,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
  log?: () => WorkerLog,
): Array<{ child: ChildProcess; output: () => string; log?: WorkerLog }> {
  return Array.from({ length: count }, () => {
    const kept = log?.();
    const child = spawn(process.execPath, [...SERVER_NODE_OPTIONS, ...nodeArgs, ...entryArguments('src/cli/main.ts', ROOT), 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...SERVER_ENVIRONMENT, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    let partial = '';
    const keep = (d: Buffer) => {
      text = (text + d.toString()).slice(-4000);
    };
    child.stdout!.on('data', (d: Buffer) => {
      keep(d);
      if (!kept) return;
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        try {
          kept.lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not a log line
        }
      }
    });
    child.stderr!.on('data', keep);
    return { child, output: () => text, log: kept };
  });
}

async function stopWorkers(workers: Array<{ child: ChildProcess }>): Promise<void> {
  await Promise.all(
    workers.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.on('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

/**
 * Starts `count` workers on what is queued and times them until the queue and the outbox are
 * empty (every event stored in ClickHouse): from the last look at a full queue (every 50 ms) to
 * the first at an empty one, so the processes' start is not timed.
 */
export async function timeDrain(
  url: string,
  count: number,
  env: Record<string, string>,
  maxSeconds: number,
  nodeArgs: readonly string[] = [],
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
  try {
    const initial = (await backlog(client)).queued;
    const cpu = () => workers.reduce((sum, { child }) => sum + cpuSecondsOf(child.pid), 0);
    let startedAt = process.hrtime.bigint();
    let cpuAtStart = cpu();
    let workerCpuAtStart = workers.map(({ child }) => cpuSecondsOf(child.pid));
    let startedAtMs = Date.now();
    let ticksAtStart = machineTicks();
    const deadline = Date.now() + maxSeconds * 1000;
    let now = await backlog(client);
    while (now.queued > 0 || now.outbox > 0) {
      if (Date.now() > deadline) break;
      const exited = workers.find(({ child }) => child.exitCode !== null);
      if (exited) throw new Error(`a worker exited ${exited.child.exitCode}:\n${exited.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const at = process.hrtime.bigint();
      const atMs = Date.now();
      const workerCpuAt = workers.map(({ child }) => cpuSecondsOf(child.pid));
      const cpuAt = cpu();
      now = await backlog(client);
      if (now.queued === initial) {
        startedAt = at;
        startedAtMs = atMs;
        workerCpuAtStart = workerCpuAt;
        cpuAtStart = cpuAt;
        ticksAtStart = machineTicks();
      }
    }
    const ticks = machineTicks();
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const processed = initial - now.queued;
    const eventsPerCpuSecond = processed / (cpu() - cpuAtStart);
    const workerCpu = workers.map(({ child }, i) => cpuSecondsOf(child.pid) - workerCpuAtStart[i]!);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const idleRssMb = workers.map(({ child }) => statusMb(child.pid, 'VmRSS'));
    const peakRssMb = workers.map(({ child }) => statusMb(child.pid, 'VmHWM'));
    return {
      workers: count,
      eventsPerSecond: processed / seconds,
      eventsPerCpuSecond,
      processed,
      queued: initial,
      seconds,
      machineBusy:
        ticks && ticksAtStart && ticks.total > ticksAtStart.total
          ? (ticks.busy - ticksAtStart.busy) / (ticks.total - ticksAtStart.total)
          : undefined,
      peakRssMb,
      idleRssMb,
      ...(tracing ? { traces: workers.map(({ log }, i) => traceOf(log!, startedAtMs, workerCpu[i]!)) } : {}),
    };
  } finally {
    await stopWorkers(workers);
    await client.end();
  }
}

/** The tables a worker batch writes rows into (besides the outbox; definitions left out: a few rows). */
const WORKER_TABLES = ['persons', 'person_distinct_ids', 'personless_distinct_ids', 'groups', 'person_overrides', 'event_uuids'] as const;

/**
 * The worker's rows for its floor: what it stored in `WORKER_TABLES`, and its outbox rows (one a
 * batch of 1000 events, copied to ClickHouse and deleted since) made again from the queued
 * events' JSON, read before the drain: about the size of the event lines a worker writes there.
 */
export async function workerFloorTables(client: pg.Client, queued: FloorTable, transactions: number): Promise<FloorTable[]> {
  const tables: FloorTable[] = [];
  for (const name of WORKER_TABLES) tables.push(await readTable(client, 'public', name));
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

/**
 * The worker rounds, one per count (the first must be 1: its rows make the floor), each on a
 * fresh stream (distinct ids of its own) queued through `serverUrl`'s /batch/ first, then drained
 * by that many `hoglet worker` processes; and the floor of the rows the one worker stored.
 */
export async function workerRounds(options: {
  url: string;
  serverUrl: string;
  token: string;
  env: Record<string, string>;
  events: number;
  counts: readonly number[];
  drainSeconds: number;
  /** Node options of the worker processes besides the server's (`--cpu-prof`). */
  nodeArgs?: readonly string[];
}): Promise<{ drains: DrainFigure[]; workerFloor: PostgresFloor }> {
  const { url, events } = options;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const drains: DrainFigure[] = [];
    let workerFloor: PostgresFloor | undefined;
    for (const count of options.counts) {
      const before = await lastQueueId(client);
      await sendBatches(options.serverUrl, posthogNodeBatches(options.token, events, `r${count}-`));
      await waitFor(async () => (await backlog(client)).queued >= events, 60, 'the queue to fill');
      const queued = count === 1 ? await queueRows(client, before, await lastQueueId(client)) : undefined;
      const drain = await timeDrain(url, count, options.env, options.drainSeconds, options.nodeArgs);
      drains.push(drain);
      // What a round left at its deadline is not the next round's.
      if (drain.processed < drain.queued) await client.query('delete from ingestion_queue');
      if (queued) {
        const transactions = Math.ceil(queued.events / 1000);
        workerFloor = await postgresFloor(
          url,
          'public',
          await workerFloorTables(client, queued.table, transactions),
          queued.events,
          transactions,
        );
      }
    }
    if (!workerFloor) throw new Error('the worker rounds must start with one worker');
    return { drains, workerFloor };
  } finally {
    await client.end();
  }
}
