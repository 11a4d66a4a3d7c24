/**
 * Request latencies as the load generators measure them (process.hrtime), kept whole: every value
 * in milliseconds as a float, so that percentiles read to the microsecond. autocannon's own
 * histogram records whole milliseconds (an HDR histogram whose lowest discernible value is 1), so
 * that bare fastify's 0.4 ms and decide's 0.9 ms both read as 0 or 1 ms, and a ratio of two such
 * p99s is mostly rounding. A bench slice records at most a few hundred thousand requests: kept as
 * they are (8 bytes each), sorted once when read.
 */
export class LatencyRecorder {
  private values = new Float64Array(4096);
  private size = 0;
  private sorted = true;

  /** One request's latency in milliseconds (a float; negative or non-finite values are refused). */
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`not a latency: ${ms}`);
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.size++] = ms;
    this.sorted = false;
  }

  /** Latency from a start time of process.hrtime.bigint() to now. */
  recordSince(startNs: bigint): void {
    this.record(Number(process.hrtime.bigint() - startNs) / 1e6);
  }

  get count(): number {
    return this.size;
  }

  /**
   * The latency at percentile `p` (0-100) in milliseconds, by nearest rank: the smallest value
   * with at least p% of the values at or below it (HDR histogram's and wrk's reading). NaN when
   * nothing was recorded.
   */
  percentile(p: number): number {
    if (!(p >= 0 && p <= 100)) throw new RangeError(`not a percentile: ${p}`);
    if (this.size === 0) return NaN;
    if (!this.sorted) {
      this.values.subarray(0, this.size).sort();
      this.sorted = true;
    }
    const rank = Math.max(1, Math.ceil((p / 100) * this.size));
    return this.values[rank - 1]!;
  }
}

/** A latency in milliseconds as the bench prints it: to the hundredth (0.84), enough to tell 1.3 from 2.0. */
export function fmtMs(ms: number): string {
  return Number.isFinite(ms) ? ms.toFixed(2) : String(ms);
}
