import { describe, expect, it } from 'vitest';
import { growableCopy } from '../../src/lib/growable-copy.js';

describe('growableCopy', () => {
  it('copies like a spread: later sources win, missing sources are skipped', () => {
    const first = { a: 1, b: 2 };
    const second = { b: 3, c: 4 };
    const copy = growableCopy<Record<string, number>>(first, null, second, undefined);
    expect(copy).toEqual({ ...first, ...second });
    expect(Object.keys(copy)).toEqual(Object.keys({ ...first, ...second }));
  });

  it('is a new object: growing it leaves the sources alone', () => {
    const source: Record<string, unknown> = { a: 1 };
    const copy = growableCopy(source);
    copy.b = 2;
    expect(source).toEqual({ a: 1 });
    expect(copy).toEqual({ a: 1, b: 2 });
  });

  it("keeps a client's __proto__ key as an own key, as a spread does, without changing the prototype", () => {
    const parsed = JSON.parse('{"a": 1, "__proto__": {"plan": "enterprise"}, "z": 2}') as Record<string, unknown>;
    const copy = growableCopy<Record<string, unknown>>({ before: true }, parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy.plan).toBeUndefined();
    expect(Object.keys(copy)).toEqual(Object.keys({ before: true, ...parsed }));
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ plan: 'enterprise' });
    copy.extra = 3;
    expect(copy.extra).toBe(3);
  });

  it('copies enumerable symbol keys on either path, as a spread does', () => {
    const tag = Symbol('tag');
    const hidden = Symbol('hidden');
    for (const source of [{ a: 1 }, JSON.parse('{"a": 1, "__proto__": null}') as Record<string, unknown>]) {
      Object.defineProperty(source, tag, { value: 'kept', enumerable: true });
      Object.defineProperty(source, hidden, { value: 'left', enumerable: false });
      const copy = growableCopy<Record<string | symbol, unknown>>(source);
      expect(copy[tag]).toBe('kept');
      expect(hidden in copy).toBe(false);
      expect(Reflect.ownKeys(copy)).toEqual(Reflect.ownKeys({ ...source }));
    }
  });
});
