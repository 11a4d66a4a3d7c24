/**
 * SharedBatch (src/web-analytics/shared-batch.ts): the requests of one key share a computation, each
 * part once; a part asked again, an old batch or a failed one starts a new computation.
 */
import { describe, expect, it } from 'vitest';
import { SharedBatch } from '../../src/web-analytics/shared-batch.js';

function counter() {
  let runs = 0;
  const compute = async () => {
    runs++;
    return new Map([
      ['a', `a${runs}`],
      ['b', `b${runs}`],
    ]);
  };
  return { compute, runs: () => runs };
}

describe('SharedBatch', () => {
  it('answers concurrent requests for different parts from one computation', async () => {
    const batch = new SharedBatch<string, string>(5000);
    const c = counter();
    expect(await Promise.all([batch.take('k', 'a', c.compute), batch.take('k', 'b', c.compute)])).toEqual(['a1', 'b1']);
    expect(c.runs()).toBe(1);
  });

  it('hands each part out once: a part asked again is computed again', async () => {
    const batch = new SharedBatch<string, string>(5000);
    const c = counter();
    expect(await batch.take('k', 'a', c.compute)).toBe('a1');
    expect(await batch.take('k', 'a', c.compute)).toBe('a2');
    // The newest computation's other part is still there for its first asker.
    expect(await batch.take('k', 'b', c.compute)).toBe('b2');
    expect(c.runs()).toBe(2);
  });

  it('keeps keys apart', async () => {
    const batch = new SharedBatch<string, string>(5000);
    const c = counter();
    await batch.take('k1', 'a', c.compute);
    expect(await batch.take('k2', 'b', c.compute)).toBe('b2');
    expect(c.runs()).toBe(2);
  });

  it('never hands out a part of a computation older than its age limit', async () => {
    let now = 1000;
    const batch = new SharedBatch<string, string>(5000, () => now);
    const c = counter();
    await batch.take('k', 'a', c.compute);
    now += 4999;
    expect(await batch.take('k', 'b', c.compute)).toBe('b1');
    await batch.take('k2', 'a', c.compute);
    now += 5000;
    expect(await batch.take('k2', 'b', c.compute)).toBe('b3');
    expect(batch.size).toBe(1);
  });

  it('does not share a failed computation with later requests', async () => {
    const batch = new SharedBatch<string, string>(5000);
    const failing = async (): Promise<Map<string, string>> => {
      throw new Error('engine down');
    };
    await expect(batch.take('k', 'a', failing)).rejects.toThrow('engine down');
    const c = counter();
    expect(await batch.take('k', 'b', c.compute)).toBe('b1');
  });
});
