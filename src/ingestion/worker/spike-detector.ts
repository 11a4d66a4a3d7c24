/**
 * Spike detection for the realtime lane: a distinct id sending more than `perSecond` events in a
 * one-second window (with a burst allowance) is "hot". Its events are still stored at once, but
 * their person processing is deferred to the overflow lane, so one runaway client cannot hold up
 * every other person's updates. Pure bookkeeping, time injected.
 */
export class SpikeDetector {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number = perSecond,
  ) {}

  /** Takes one token for this key; false when the key is over its rate. */
  allow(key: string, nowMs: number): boolean {
    if (this.perSecond <= 0) return true;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedMs: nowMs };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * this.perSecond);
    bucket.updatedMs = nowMs;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 100_000) this.prune(nowMs);
    return allowed;
  }

  /** Forgets keys whose buckets have refilled: they would start full anyway. */
  private prune(nowMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
  }
}
