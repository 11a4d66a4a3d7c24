/**
 * The GeoIP service's two caches: the reader's decoded records (LruCache, given to `maxmind`), and
 * the answers of recent lookups by address (RecentLookups).
 */

/**
 * The answers of recent lookups by address, so that an address seen again costs one map read.
 *
 * The reader's own cache keeps decoded records by their place in the file, but every lookup still
 * parses the address, walks the search tree and normalises the record into a new object: several
 * microseconds, paid for every event. Events come in runs per visitor (one address, many page
 * views), and flags requests repeat per user, so most addresses are seen again soon.
 *
 * Two generations instead of a strict LRU: a hit costs no reordering. When the current one is full
 * it becomes the previous one (the one before is dropped); an address found only in the previous
 * generation is copied into the current one. At most `2 × size` answers are kept.
 */
export class RecentLookups<T> {
  private current = new Map<string, T>();
  private previous = new Map<string, T>();

  constructor(private readonly size: number) {}

  /** The answer kept for `address`, or undefined when there is none. */
  get(address: string): T | undefined {
    const found = this.current.get(address);
    if (found !== undefined || this.size <= 0) return found;
    const older = this.previous.get(address);
    if (older !== undefined) this.set(address, older);
    return older;
  }

  set(address: string, answer: T): void {
    if (this.size <= 0) return;
    if (this.current.size >= this.size) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(address, answer);
  }
}

/** Least-recently-used cache for the reader's decoded records (a Map keeps insertion order). */
export class LruCache {
  private readonly entries = new Map<string | number, unknown>();
  constructor(private readonly max: number) {}

  get(key: string | number): unknown {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string | number, value: unknown): void {
    if (this.max <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
