import { describe, expect, it } from 'vitest';
import { SharedLookups } from '../../src/lib/shared-lookups.js';

/** Lookups on a clock the test moves, counting the lookups made per key. */
function setUp(options: { maxKeys?: number; keep?: (answer: string) => boolean } = {}) {
  let time = 1_000;
  const made: string[] = [];
  const lookups = new SharedLookups<string, string>({ lifetimeMs: 100, ...options, now: () => time });
  const get = (key: string, answer = `${key}:${made.filter((k) => k === key).length + 1}`) =>
    lookups.get(key, () => {
      made.push(key);
      return Promise.resolve(answer);
    });
  return { lookups, get, made, advance: (ms: number) => (time += ms) };
}

describe('SharedLookups', () => {
  it('reuses a lookup within its lifetime and looks up again after it', async () => {
    const { get, made, advance } = setUp();
    expect(await get('a')).toBe('a:1');
    advance(99);
    expect(await get('a')).toBe('a:1');
    advance(1);
    expect(await get('a')).toBe('a:2');
    expect(made).toEqual(['a', 'a']);
  });

  it('gives concurrent callers one lookup', async () => {
    const lookups = new SharedLookups<string, number>({ lifetimeMs: 100, now: () => 0 });
    let release!: (value: number) => void;
    let started = 0;
    const lookup = () => {
      started++;
      return new Promise<number>((resolve) => (release = resolve));
    };
    const first = lookups.get('a', lookup);
    const second = lookups.get('a', lookup);
    expect(second).toBe(first);
    release(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    expect(started).toBe(1);
  });

  it('forgets a rejected lookup: the next caller looks up again', async () => {
    const lookups = new SharedLookups<string, number>({ lifetimeMs: 100, now: () => 0 });
    await expect(lookups.get('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await lookups.get('a', () => Promise.resolve(1))).toBe(1);
    expect(await lookups.get('a', () => Promise.resolve(2))).toBe(1);
  });

  it('forgets an answer it is told not to keep', async () => {
    const { get, made } = setUp({ keep: (answer) => answer !== 'none' });
    expect(await get('a', 'none')).toBe('none');
    expect(await get('a', 'some')).toBe('some');
    expect(await get('a', 'other')).toBe('some');
    expect(made).toEqual(['a', 'a']);
  });

  it('keeps at most maxKeys, dropping the oldest lookups and the expired first', async () => {
    const { lookups, get, made, advance } = setUp({ maxKeys: 2 });
    await get('a');
    advance(10);
    await get('b');
    await get('c');
    expect(lookups.size).toBe(2);
    // `a` was dropped for `c`; `b` is still kept.
    await get('b');
    expect(made).toEqual(['a', 'b', 'c']);
    await get('a');
    expect(made).toEqual(['a', 'b', 'c', 'a']);
    // Expired ones go first, though the bound is not reached.
    const wide = setUp({ maxKeys: 10 });
    await wide.get('x');
    wide.advance(100);
    await wide.get('y');
    expect(wide.lookups.size).toBe(1);
  });

  it('looks a forgotten key up again, and every key after clear', async () => {
    const { lookups, get, made } = setUp();
    await get('a');
    await get('b');
    lookups.forget('a');
    expect(await get('a')).toBe('a:2');
    expect(await get('b')).toBe('b:1');
    lookups.clear();
    expect(await get('a')).toBe('a:3');
    expect(await get('b')).toBe('b:2');
    expect(made).toEqual(['a', 'b', 'a', 'a', 'b']);
  });
});
