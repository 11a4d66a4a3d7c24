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
