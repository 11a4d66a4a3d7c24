import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './db/availability.js';
import { nextTurn } from './next-turn.js';
import { WakeableSleep } from './wakeable-sleep.js';

/**
 * What a round returns: the milliseconds to wait before the next round; 0 for the next turn of
 * the event loop (more work is waiting); nothing for the task's interval. A round whose own
 * result is a number of another kind (rows pruned) is wrapped to return nothing.
 */
export type RoundWait = number | undefined | void;

export interface PeriodicTaskOptions {
  /** The task's name, in the line logged for a failed round when it has no message of its own. */
  name: string;
  /** Milliseconds between rounds, unless a round returns another wait. */
  intervalMs: number;
  /** Wait an interval before the first round (otherwise it runs at start). */
  waitFirst?: boolean;
  /** The line logged once for a failed round ("<name> failed; retrying later" unless given). */
  failureMessage?: string;
  /** The level it is logged at ('error' unless given). */
  failureLevel?: 'warn' | 'error';
  /** After a failed round, the next one waits this much longer than the interval (a fault not to be met every few seconds). */
  failurePauseMs?: number;
}

/**
 * A background task that runs a round every interval until stopped: the loop the background
 * workers share (the sessions merge, the event uuids prune, the background deletions). A round
 * that throws is logged once with the task's message and the next round tries again; a database
 * that cannot be reached is not logged here (its outage is logged once by its own watcher,
 * platform/db/availability.ts). `wake` ends the wait for the next round; `stop` ends it too and
 * waits for the round in progress. What a round does, and any lease it holds, is the round's.
 */
export class PeriodicTask {
  private active = false;
  private loop: Promise<void> | undefined;
  private pause = new WakeableSleep();

  constructor(
    private readonly log: Logger,
    private readonly round: () => Promise<RoundWait>,
    private readonly options: PeriodicTaskOptions,
  ) {}

  /** Started and not asked to stop. */
  get running(): boolean {
    return this.active;
  }

  /** Asked to stop while a round may be in progress: a long round ends early at a safe point. */
  get stopping(): boolean {
    return !this.active && this.loop !== undefined;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    // A fresh pause: the wake of an earlier stop, during a round, would skip the first wait.
    this.pause = new WakeableSleep();
    const loop = this.run().finally(() => {
      if (this.loop === loop) this.loop = undefined;
    });
    this.loop = loop;
  }

  /** Runs the next round now (or, during a round, right after it) instead of after the wait. */
  wake(): void {
    this.pause.wake();
  }

  /** Stops after the round in progress, if any. */
  async stop(): Promise<void> {
    if (!this.active) return;
    this.active = false;
    this.pause.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    if (this.options.waitFirst) await this.pause.sleep(this.options.intervalMs);
    while (this.active) {
      const wait = await this.runRound();
      if (!this.active) break;
      if (wait === 0) await nextTurn();
      else await this.pause.sleep(wait);
    }
  }

  /** Runs a round; returns the wait before the next one. */
  private async runRound(): Promise<number> {
    const { intervalMs, failurePauseMs = 0 } = this.options;
    try {
      return (await this.round()) ?? intervalMs;
    } catch (error) {
      if (isDatabaseUnavailable(error)) return intervalMs;
      const message = this.options.failureMessage ?? `${this.options.name} failed; retrying later`;
      this.log[this.options.failureLevel ?? 'error']({ err: error }, message);
      return intervalMs + failurePauseMs;
    }
  }
}
