import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../src/lib/map-in-order.js';

/** A promise settled from outside, to let items finish in any order. */
function gate<T>() {
  let open!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { promise, open, fail };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('mapBounded', () => {
  it('runs at most `limit` items at a time and answers in the items’ order', async () => {
    const gates = [0, 1, 2, 3, 4].map(() => gate<string>());
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const all = mapBounded([0, 1, 2, 3, 4], 2, async (i) => {
      started.push(i);
      most = Math.max(most, ++running);
      try {
        return await gates[i]!.promise;
      } finally {
        running--;
      }
    });
    await turn();
    expect(started).toEqual([0, 1]);
    gates[1]!.open('b'); // the second finishes first: the third starts in its place
    await turn();
    expect(started).toEqual([0, 1, 2]);
    for (const [i, v] of [
      [0, 'a'],
      [2, 'c'],
      [3, 'd'],
      [4, 'e'],
    ] as const) {
      gates[i]!.open(v);
      await turn();
    }
    expect(await all).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(most).toBe(2);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const gates = [0, 1, 2, 3].map(() => gate<number>());
    const started: number[] = [];
    const all = mapBounded([0, 1, 2, 3], 2, (i) => {
      started.push(i);
      return gates[i]!.promise;
    });
    gates[0]!.fail(new Error('tile 0'));
    await expect(all).rejects.toThrow('tile 0');
    gates[1]!.open(1);
    await turn();
    expect(started).toEqual([0, 1]);
  });

  it('answers an empty list, and runs one at a time below a limit of one', async () => {
    expect(await mapBounded([], 3, async () => 1)).toEqual([]);
    expect(await mapBounded([1, 2, 3], 0, async (x) => x * 2)).toEqual([2, 4, 6]);
  });
});
