import { describe, expect, it } from 'vitest';
import { ConnectionPool } from '../../src/platform/analytics/connection-pool.js';

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ConnectionPool', () => {
  it('makes connections while all are busy, up to its size, then calls wait their turn', async () => {
    let made = 0;
    const pool = new ConnectionPool(2, () => ({ id: ++made }), { id: 0 });
    const gates = [gate(), gate(), gate()];
    const used: number[] = [];
    const calls = gates.map((g, i) =>
      pool.use(async (c) => {
        used[i] = c.id;
        await g.promise;
        return c.id;
      }),
    );
    await turn();
    expect(used).toEqual([0, 1]); // the third waits: two connections at most
    expect(made).toBe(1);
    gates[1]!.open();
    await turn();
    expect(used[2]).toBe(1); // the freed connection, handed on
    gates[0]!.open();
    gates[2]!.open();
    expect(await Promise.all(calls)).toEqual([0, 1, 1]);
    // Idle connections are used again before any is made.
    expect(await pool.use(async (c) => c.id)).toBeLessThan(2);
    expect(made).toBe(1);
    expect(pool.close().map((c) => c.id)).toEqual([0, 1]);
  });

  it('gives a connection back when the call fails', async () => {
    const pool = new ConnectionPool(1, () => ({ id: 1 }));
    await expect(pool.use(async () => Promise.reject(new Error('query failed')))).rejects.toThrow('query failed');
    expect(await pool.use(async (c) => c.id)).toBe(1);
    expect(pool.close()).toEqual([{ id: 1 }]);
  });

  it('waits for a connection when another cannot be made, and fails when none can', async () => {
    const refusing = () => {
      throw new Error('no more');
    };
    await expect(new ConnectionPool(2, refusing).use(async () => 1)).rejects.toThrow('no more');
    const pool = new ConnectionPool(3, refusing, { id: 0 });
    const first = gate();
    const a = pool.use(async (c) => (await first.promise, c.id));
    const b = pool.use(async (c) => c.id);
    await turn();
    first.open();
    expect(await Promise.all([a, b])).toEqual([0, 0]);
  });
});
