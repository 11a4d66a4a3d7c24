/**
 * One computation whose parts several requests ask for, one part each: the web analytics page asks
 * its eight tables as eight queries (PostHog's WebStatsTableQuery, one a tile), and one pass over
 * the events answers all of them for about the cost of one. The first request of a key starts the
 * computation of every part; the next requests of that key take their part from it, each part once
 * (a second request for a part starts a new computation, so a page loaded again reads the events
 * again), and never from one older than `maxAgeMs`.
 */
export class SharedBatch<P, T> {
  private readonly batches = new Map<string, { result: Promise<Map<P, T>>; taken: Set<P>; started: number }>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Part `part` of the computation for `key`: a running or recent one's, else `compute`'s (which computes every part). */
  async take(key: string, part: P, compute: () => Promise<Map<P, T>>): Promise<T | undefined> {
    const now = this.now();
    for (const [k, batch] of this.batches) if (now - batch.started >= this.maxAgeMs) this.batches.delete(k);
    let batch = this.batches.get(key);
    if (batch === undefined || batch.taken.has(part)) {
      const result = compute();
      const started = { result, taken: new Set<P>(), started: now };
      batch = started;
      this.batches.set(key, started);
      // A failed computation is not shared with later requests (they try again).
      result.catch(() => {
        if (this.batches.get(key) === started) this.batches.delete(key);
      });
    }
    batch.taken.add(part);
    return (await batch.result).get(part);
  }

  /** Keys with a batch kept (for tests). */
  get size(): number {
    return this.batches.size;
  }
}
