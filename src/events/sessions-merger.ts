import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import type { Database } from '../platform/db/database.js';
import { acquireLease, releaseLease } from '../platform/lease.js';
import { PeriodicTask } from '../platform/periodic-task.js';
import { mergeSessionsParts, sessionsParts, type SessionsParts } from './sessions-parts-store.js';

const LEASE = 'sessions-merge';
/** Longer than a merge of the largest table merged (maxRows: ~15 s). */
const LEASE_TTL_MS = 10 * 60_000;
/** After a failed round: a merge ClickHouse refuses is not asked again every few seconds. */
const FAILURE_PAUSE_MS = 10 * 60_000;

export interface SessionsMergeLimits {
  /** Seconds without a new part before the table is merged: ingestion has gone quiet. */
  quietSeconds: number;
  /**
   * Seconds after its last merge (the largest part's age) a table is merged even while events
   * arrive: under steady traffic a table is never quiet, and its parts would stay apart for good.
   */
  busySeconds: number;
  /**
   * The least share of the rows outside the largest part worth a merge, which rewrites the whole
   * table: a table is rewritten again only once it has grown by about this much.
   */
  minShare: number;
  /**
   * Tables with more rows are left to ClickHouse's own merges: a merge cannot be cancelled (KILL
   * QUERY waits for it), so it holds a core, a connection and a shutdown until done (~1 s for
   * 150k rows).
   */
  maxRows: number;
}

export const SESSIONS_MERGE_LIMITS: SessionsMergeLimits = { quietSeconds: 30, busySeconds: 3600, minShare: 0.1, maxRows: 2_000_000 };

export type MergeDecision = 'merge' | 'one part' | 'ingesting' | 'too little to merge' | 'too large';

/**
 * Whether to merge the sessions table now. ClickHouse merges parts in the background while events
 * arrive, but leaves a few parts of unequal sizes unmerged for good, a session's rows spread over
 * them; reading them merged in order costs the web analytics page ~12% of its engine time at a
 * million events (docs/benchmarks.md).
 */
export function mergeDecision(parts: SessionsParts, limits: SessionsMergeLimits): MergeDecision {
  if (parts.parts < 2) return 'one part';
  if (parts.quietSeconds < limits.quietSeconds && parts.largestAgeSeconds < limits.busySeconds) return 'ingesting';
  if (parts.rows > limits.maxRows) return 'too large';
  if (parts.rows - parts.largestRows < parts.rows * limits.minShare) return 'too little to merge';
  return 'merge';
}

export interface SessionsMergerOptions {
  limits?: Partial<SessionsMergeLimits>;
  /** How often the table's parts are looked at. */
  intervalMs?: number;
}

/**
 * Merges the sessions table into one part once ingestion has gone quiet (a bulk load, a night), or
 * an hour after its last merge under steady traffic, so that web analytics reads one row a
 * session. Runs wherever the ingestion worker runs; one process at a time (a lease). One merge at
 * a time, and only of a table within the limits.
 */
export class SessionsMerger {
  private readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly limits: SessionsMergeLimits;
  private readonly task: PeriodicTask;
  private toldTooLarge = false;

  constructor(
    private readonly database: Database,
    private readonly analytics: AnalyticsEngine,
    private readonly log: Logger,
    options: SessionsMergerOptions = {},
  ) {
    this.limits = { ...SESSIONS_MERGE_LIMITS, ...options.limits };
    const round = async (): Promise<void> => {
      await this.mergeIfDue();
    };
    this.task = new PeriodicTask(log, round, {
      name: 'sessions merge',
      intervalMs: options.intervalMs ?? 10_000,
      waitFirst: true,
      failureLevel: 'warn',
      failureMessage: 'merging the sessions table failed; retrying later',
      failurePauseMs: FAILURE_PAUSE_MS,
    });
  }

  start(): void {
    this.task.start();
  }

  /** Stops after the merge in progress, if any. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Looks at the table's parts and merges them if mergeDecision says so; returns what it decided. */
  async mergeIfDue(): Promise<MergeDecision> {
    const parts = await sessionsParts(this.analytics);
    const decision = mergeDecision(parts, this.limits);
    if (decision === 'too large' && !this.toldTooLarge) {
      this.toldTooLarge = true;
      this.log.info(
        { ...parts, maxRows: this.limits.maxRows },
        "the sessions table is left to ClickHouse's own merges: too large to merge at once",
      );
    }
    if (decision !== 'merge') return decision;
    if (!(await acquireLease(this.database.db, LEASE, this.owner, LEASE_TTL_MS))) return decision;
    try {
      const started = performance.now();
      await mergeSessionsParts(this.analytics);
      const after = await sessionsParts(this.analytics);
      this.log.info(
        {
          partsBefore: parts.parts,
          rowsBefore: parts.rows,
          quietSeconds: parts.quietSeconds,
          parts: after.parts,
          rows: after.rows,
          ms: Math.round(performance.now() - started),
        },
        'sessions table merged into one part',
      );
    } finally {
      await releaseLease(this.database.db, LEASE, this.owner).catch(() => undefined);
    }
    return decision;
  }
}
