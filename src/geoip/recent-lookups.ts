/**
 * The GeoIP service's caches: the reader's decoded records (by their place in the file, given to
 * `maxmind`) and the answers of recent lookups by address, both RecentLookups.
 */

/**
 * A cache of recent answers by key: by address, so that an address seen again costs one map read;
 * and the reader's decoded records by offset, which one new address's lookup reads dozens of.
 *
 * The reader's own cache keeps decoded records by their place in the file, but every lookup still
 * parses the address, walks the search tree and normalises the record into a new object: several
 * microseconds, paid for every event. Events come in runs per visitor (one address, many page
 * views), and flags requests repeat per user, so most addresses are seen again soon.
 *
 * Two generations instead of a strict LRU: a hit costs no reordering (a Map kept in LRU order, a
 * delete and a set per hit, made a new address's lookup several times dearer (docs/benchmarks.md),
 * as the decoder asks its cache once per pointer). When the current one is full
 * it becomes the previous one (the one before is dropped); an address found only in the previous
 * generation is copied into the current one. At most `2 × size` answers are kept. A kept
 * undefined is no answer (the reader keeps none: its cache takes a truthy value as a hit).
 */
export class RecentLookups<T, K = string> {
  private current = new Map<K, T>();
  private previous = new Map<K, T>();

  constructor(private readonly size: number) {}

  /** The answer kept for `key`, or undefined when there is none. */
  get(key: K): T | undefined {
    const found = this.current.get(key);
    if (found !== undefined || this.size <= 0) return found;
    const older = this.previous.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: K, answer: T): void {
    if (this.size <= 0) return;
    if (this.current.size >= this.size) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, answer);
  }
}
