/**
 * Connections used one call at a time each, at most `size` of them, made when every one made is
 * busy: chdb runs one query at a time on a connection, side by side on several (to one folder).
 */
export class ConnectionPool<C> {
  private readonly made: C[] = [];
  private readonly idle: C[] = [];
  private readonly waiting: Array<(connection: C) => void> = [];
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly make: () => C,
    first?: C,
  ) {
    if (first !== undefined) {
      this.made.push(first);
      this.idle.push(first);
    }
  }

  /** Runs `fn` with a connection of its own; waits for one when `size` are busy. */
  async use<R>(fn: (connection: C) => Promise<R>): Promise<R> {
    const connection = this.idle.pop() ?? this.another() ?? (await new Promise<C>((resolve) => this.waiting.push(resolve)));
    try {
      return await fn(connection);
    } finally {
      const next = this.waiting.shift();
      if (next) next(connection);
      else this.idle.push(connection);
    }
  }

  /** Every connection made, to close them: none is made after. */
  close(): readonly C[] {
    this.closed = true;
    return this.made;
  }

  private another(): C | undefined {
    if (this.made.length >= Math.max(1, this.size) || (this.closed && this.made.length > 0)) return undefined;
    let connection: C;
    try {
      connection = this.make();
    } catch (error) {
      // With one connection made, the call waits for it instead.
      if (this.made.length > 0) return undefined;
      throw error;
    }
    this.made.push(connection);
    return connection;
  }
}
