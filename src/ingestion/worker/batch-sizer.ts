/**
 * How many events the next batch may hold so that its transaction keeps the process's thread for
 * about `budgetMs`. On SQLite a batch's transaction runs without a pause (better-sqlite3 is
 * synchronous), and requests arriving meanwhile wait for it: batch size bounds that wait. The
 * time an event costs is learnt from the batches before (it differs by machine, by workload,
 * and while the code is still cold), smoothed so that one slow batch does not halve the next.
 */
export class BatchSizer {
  /** Milliseconds per event, smoothed; undefined until a batch was measured. */
  private msPerEvent: number | undefined;
  /** Batches are never smaller (a batch of a few events costs its transaction and reads alone). */
  private readonly minEvents: number;
  /** The first batch's size, before anything was measured (the code is cold then). */
  private readonly firstEvents: number;

  constructor(
    private readonly maxEvents: number,
    private readonly budgetMs: number,
  ) {
    this.minEvents = Math.min(50, maxEvents);
    this.firstEvents = Math.max(this.minEvents, Math.floor(maxEvents / 4));
  }

  get nextSize(): number {
    if (this.msPerEvent === undefined) return this.firstEvents;
    const fitting = Math.floor(this.budgetMs / this.msPerEvent);
    return Math.max(this.minEvents, Math.min(this.maxEvents, fitting));
  }

  /** A batch of `events` held the thread for `ms`. */
  record(events: number, ms: number): void {
    if (events <= 0 || !(ms >= 0)) return;
    const measured = ms / events;
    this.msPerEvent = this.msPerEvent === undefined ? measured : (this.msPerEvent + measured) / 2;
  }
}
