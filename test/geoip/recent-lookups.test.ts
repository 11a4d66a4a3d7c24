import { describe, expect, it } from 'vitest';
import { RecentLookups } from '../../src/geoip/recent-lookups.js';

describe('RecentLookups', () => {
  it('gives back what was kept for an address, and nothing for others', () => {
    const recent = new RecentLookups<string>(4);
    recent.set('1.2.3.4', 'Paris');
    expect(recent.get('1.2.3.4')).toBe('Paris');
    expect(recent.get('5.6.7.8')).toBeUndefined();
  });

  it('keeps the last size answers at least, and drops the generation before the previous one', () => {
    const recent = new RecentLookups<number>(3);
    for (let i = 0; i < 6; i++) recent.set(`a${i}`, i);
    // a0..a2 filled the first generation, a3..a5 the second: both are still there.
    expect([5, 4, 3].map((i) => recent.get(`a${i}`))).toEqual([5, 4, 3]);
    expect(recent.get('a0')).toBe(0);
    const fresh = new RecentLookups<number>(3);
    for (let i = 0; i < 7; i++) fresh.set(`a${i}`, i);
    // The seventh started a third generation: the first (a0..a2) is gone.
    expect([0, 1, 2].map((i) => fresh.get(`a${i}`))).toEqual([undefined, undefined, undefined]);
    expect([6, 5, 4, 3].map((i) => fresh.get(`a${i}`))).toEqual([6, 5, 4, 3]);
  });

  it('carries an address read from the older generation into the current one, so it outlives that generation', () => {
    const recent = new RecentLookups<number>(2);
    recent.set('old', 1);
    recent.set('b', 2);
    recent.set('c', 3); // 'old' and 'b' are now the previous generation
    expect(recent.get('old')).toBe(1); // read: copied into the current one (which is now full)
    recent.set('d', 4); // the current one (c, old) becomes previous; 'b' is dropped
    expect(recent.get('old')).toBe(1);
    expect(recent.get('b')).toBeUndefined();
  });

  it('keeps nothing with a size of 0', () => {
    const recent = new RecentLookups<number>(0);
    recent.set('1.2.3.4', 1);
    expect(recent.get('1.2.3.4')).toBeUndefined();
  });
});
