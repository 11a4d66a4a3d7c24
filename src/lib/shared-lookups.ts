export interface SharedLookupsOptions<V> {
  /** How long a lookup's answer is reused, from when it started. */
  lifetimeMs: number;
  /** Keys kept at most: the oldest lookups are dropped first. Unbounded when not given. */
  maxKeys?: number;
  /** Whether an answer is kept (false: the next caller looks up again). Every answer by default. */
  keep?: (answer: V) => boolean;
  /** The clock, in ms (tests give their own). */
  now?: () => number;
}

interface Lookup<V> {
  startedAt: number;
  answer: Promise<V>;
}

/**
 * A lookup per key whose promise concurrent callers share and later ones reuse for a while, held
 * in memory. A rejected lookup is forgotten, so the next caller tries again rather than being
 * handed the same failure until it expires.
 */
export class SharedLookups<K, V> {
  /** Oldest first: a lookup started again goes to the end. */
  private readonly lookups = new Map<K, Lookup<V>>();
  private readonly lifetimeMs: number;
  private readonly maxKeys: number;
  private readonly keep: ((answer: V) => boolean) | undefined;
  private readonly now: () => number;

  constructor(options: SharedLookupsOptions<V>) {
    this.lifetimeMs = options.lifetimeMs;
    this.maxKeys = options.maxKeys ?? Infinity;
    this.keep = options.keep;
    this.now = options.now ?? Date.now;
  }

  /** The key's answer: the lookup kept for it while younger than the lifetime, or else a new one by `lookup`. */
  get(key: K, lookup: () => Promise<V>): Promise<V> {
    const now = this.now();
    const kept = this.lookups.get(key);
    if (kept && now - kept.startedAt < this.lifetimeMs) return kept.answer;
    this.lookups.delete(key);
    // Expired lookups are the oldest: dropped from the front, with any over the bound.
    for (const [other, old] of this.lookups) {
      if (this.lookups.size < this.maxKeys && now - old.startedAt < this.lifetimeMs) break;
      this.lookups.delete(other);
    }
    const started: Lookup<V> = { startedAt: now, answer: lookup() };
    this.lookups.set(key, started);
    const forget = () => {
      if (this.lookups.get(key) === started) this.lookups.delete(key);
    };
    started.answer.then((answer) => {
      if (this.keep && !this.keep(answer)) forget();
    }, forget);
    return started.answer;
  }

  /** The key is looked up afresh by the next caller (its data changed). */
  forget(key: K): void {
    this.lookups.delete(key);
  }

  /** Every key is looked up afresh. */
  clear(): void {
    this.lookups.clear();
  }

  /** Keys kept (expired ones among them until a lookup drops them). */
  get size(): number {
    return this.lookups.size;
  }
}
