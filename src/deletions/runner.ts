import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { teamOwnedTables } from '../environments/store.js';
import {
  deletePersonEventsPage,
  deleteTeamRowsBatch,
  finishDeletion,
  nextPendingDeletion,
  saveDeletionCursor,
  type PendingDeletion,
} from './store.js';

export interface DeletionRunnerOptions {
  /** Rows per statement (and events looked at per page of a person's events). */
  batchSize?: number;
  /** How often to look for work when there is none. */
  idleMs?: number;
}

/**
 * Carries out the pending deletions (store.ts) in the background, oldest first, a batch per short
 * transaction, yielding to the event loop between batches: an environment's data and a person's
 * events may be millions of rows, which in one transaction would hold SQLite's write lock (and
 * the process) until done, and make one huge transaction on PostgreSQL. A deletion's row stays
 * until it is complete, with its progress, so a restart resumes it. Batches are idempotent, so
 * several processes running this at once only repeat work.
 */
export class DeletionRunner {
  private running = false;
  private loop: Promise<void> | undefined;
  private sleeper: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private readonly batchSize: number;
  private readonly idleMs: number;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    options: DeletionRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 5000;
    this.idleMs = options.idleMs ?? 1000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
  }

  /** A deletion was queued: look now rather than at the next poll. */
  wake(): void {
    if (!this.sleeper) return;
    clearTimeout(this.sleeper.timer);
    this.sleeper.resolve();
    this.sleeper = undefined;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.sleeper = { timer: setTimeout(() => ((this.sleeper = undefined), resolve()), ms), resolve };
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.step();
      } catch (error) {
        this.log.error({ err: error }, 'background deletion failed; retrying');
        await this.sleep(this.idleMs * 5);
        continue;
      }
      if (worked) await new Promise((resolve) => setImmediate(resolve));
      else await this.sleep(this.idleMs);
    }
  }

  /** One batch of the oldest pending deletion; false when there is none. */
  async step(): Promise<boolean> {
    const deletion = await nextPendingDeletion(this.database.db);
    if (!deletion) return false;
    const done = deletion.kind === 'person_events' ? await this.personEventsStep(deletion) : await this.environmentStep(deletion);
    if (done) {
      await finishDeletion(this.database.db, Number(deletion.id));
      this.log.info({ team: Number(deletion.owner_team_id), kind: deletion.kind, target: deletion.target }, 'background deletion complete');
    }
    return true;
  }

  /** Until done: one batch of the first team-owned table that still has rows of the team. */
  private async environmentStep(deletion: PendingDeletion): Promise<boolean> {
    const teamId = Number(deletion.owner_team_id);
    for (const table of await teamOwnedTables(this.database)) {
      if ((await deleteTeamRowsBatch(this.database, table, teamId, this.batchSize)) > 0) return false;
    }
    return true;
  }

  private async personEventsStep(deletion: PendingDeletion): Promise<boolean> {
    const after = deletion.cursor_timestamp !== null && deletion.cursor_uuid !== null ? { timestamp: deletion.cursor_timestamp, uuid: deletion.cursor_uuid } : null;
    const next = await deletePersonEventsPage(this.database, Number(deletion.owner_team_id), deletion.target ?? '', after, this.batchSize);
    if (next === null) return true;
    await saveDeletionCursor(this.database.db, Number(deletion.id), next);
    return false;
  }

  /** Runs every pending deletion to the end (for tests and one-shot use). */
  async drain(): Promise<void> {
    while (await this.step()) {
      // keep going
    }
  }
}
