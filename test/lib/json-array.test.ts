/**
 * A queue chunk's events are split out of its JSON array as the texts they were written in:
 * exactly the JSON of each element, whatever its strings hold.
 */
import { describe, expect, it } from 'vitest';
import { splitJsonArray } from '../../src/lib/json-array.js';

describe('splitJsonArray', () => {
  it("gives each element's text, for arrays written by JSON.stringify", () => {
    const tricky = ['plain', 'a "quoted" word', 'back\\slash', 'ends in \\', '\\"', '[{,}]', ',', 'é😀', '\u0000\n\t'];
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
    const value = (depth: number): unknown => {
      const roll = random();
      if (depth === 0 || roll < 0.3) return pick<unknown>([pick(tricky), 42, -1.5e-7, true, null]);
      if (roll < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth - 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`${pick(tricky)}${i}`, value(depth - 1)]));
    };
    for (let n = 0; n < 300; n++) {
      const elements = Array.from({ length: Math.floor(random() * 6) }, () => value(4));
      expect(splitJsonArray(JSON.stringify(elements))).toEqual(elements.map((e) => JSON.stringify(e)));
    }
  });

  it('reads whitespace around elements and brackets', () => {
    expect(splitJsonArray(' [ {"a": [1, 2]} ,\n"x" , [] ]\n')).toEqual(['{"a": [1, 2]}', '"x"', '[]']);
    expect(splitJsonArray('[]')).toEqual([]);
    expect(splitJsonArray('[ ]')).toEqual([]);
  });

  it('refuses what is not one well-bracketed array', () => {
    for (const text of ['{"a":1}', '', '[1,', '[1,,2]', '[,1]', '[1,]', '["x]', '[1]x', '[}', '[1]]', '["a\\"]']) {
      expect(() => splitJsonArray(text), text).toThrow(SyntaxError);
    }
  });
});
