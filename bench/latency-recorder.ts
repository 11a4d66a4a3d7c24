/** Values per chunk: 512 KiB of float64s, allocated whole when the previous one is full. */
export const LATENCY_CHUNK = 65_536;

/**
 * Request latencies as the load generators measure them (process.hrtime), kept whole: every value
 * in milliseconds as a float, so that percentiles read to the microsecond. autocannon's own
 * histogram records whole milliseconds (an HDR histogram whose lowest discernible value is 1), so
 * that bare fastify's 0.4 ms and decide's 0.9 ms both read as 0 or 1 ms, and a ratio of two such
 * p99s is mostly rounding. Values go into Float64Array chunks of a fixed size, so recording while
 * the load runs never grows or copies an array; they are copied into one array and sorted when
 * first read.
 */
export class LatencyRecorder {
  private readonly chunks: Float64Array[] = [];
  private size = 0;
  /** Every value, sorted; dropped by the next record. */
  private sorted: Float64Array | undefined;

  /** One request's latency in milliseconds (a float; negative or non-finite values are refused). */
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`not a latency: ${ms}`);
    const at = this.size % LATENCY_CHUNK;
    if (at === 0) this.chunks.push(new Float64Array(LATENCY_CHUNK));
    this.chunks[this.chunks.length - 1]![at] = ms;
    this.size++;
    this.sorted = undefined;
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
    this.sorted ??= this.sortedValues();
    const rank = Math.max(1, Math.ceil((p / 100) * this.size));
    return this.sorted[rank - 1]!;
  }

  private sortedValues(): Float64Array {
    const all = new Float64Array(this.size);
    this.chunks.forEach((chunk, i) => {
      const offset = i * LATENCY_CHUNK;
      all.set(chunk.subarray(0, Math.min(LATENCY_CHUNK, this.size - offset)), offset);
    });
    return all.sort();
  }
}

/** A latency in milliseconds as the bench prints it: to the hundredth (0.84), enough to tell 1.3 from 2.0. */
export function fmtMs(ms: number): string {
  return Number.isFinite(ms) ? ms.toFixed(2) : String(ms);
}
