/**
 * The `hoglet worker` processes of the PostgreSQL bench's worker rounds (bench/postgres-workers.ts):
 * started and stopped, their memory and the machine's CPU read from /proc, and each one's round
 * read back from its debug log (BENCH_WORKER_TRACE=1).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { entryArguments, ROOT, SERVER_ENVIRONMENT, SERVER_NODE_OPTIONS } from './harness.js';

/**
 * One worker's round as its debug log tells it; times in seconds from the timed start. Batches,
 * retries and warnings are the timed part's; the warm-up's are counted apart.
 */
export interface WorkerTrace {
  cpuSeconds: number;
  /** Batches committed, and batches run again after a conflict, before the timed start (the warm-up stream). */
  warmUpBatches: number;
  warmUpRetried: number;
  events: number;
  batches: number;
  /** Summed batch times (read ahead to commit, as the worker logs them). */
  batchSeconds: number;
  preparedAhead: number;
  /** Batches run again after a conflict with another writer. */
  retried: number;
  /** Batches rolled back because a partition was taken, or rows were gone, or run one by one. */
  rolledBack: number;
  /** Each change of the partitions held, the warm-up's too (negative times): when, and how many after it. */
  partitions: Array<{ at: number; held: number }>;
  /** The first and last batch committed. */
  firstBatchAt: number;
  lastBatchAt: number;
  /** The warnings logged, when and what (the database's error code and message when one). */
  warnings: string[];
}

/** A worker's JSON log lines kept for its trace (debug level), or only the tail for errors. */
export interface WorkerLog {
  lines: Array<Record<string, unknown>>;
}

export function traceOf(log: WorkerLog, startedAtMs: number, cpuSeconds: number): WorkerTrace {
  const trace: WorkerTrace = {
    cpuSeconds,
    warmUpBatches: 0,
    warmUpRetried: 0,
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
    if (line.msg === 'ingestion partitions changed') {
      trace.partitions.push({ at, held: (line.partitions as unknown[]).length });
      continue;
    }
    if (at < 0) {
      if (line.msg === 'ingestion batch processed') trace.warmUpBatches++;
      if (line.msg === 'batch lost a race with a concurrent writer; retrying it') trace.warmUpRetried++;
      continue;
    }
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
export const IDLE_SETTLE_MS = 5000;

/** Busy and total CPU time of the whole machine so far (Linux's /proc/stat), in clock ticks. */
export function machineTicks(): { busy: number; total: number } | undefined {
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
export function startWorkers(
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

export async function stopWorkers(workers: Array<{ child: ChildProcess }>): Promise<void> {
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
