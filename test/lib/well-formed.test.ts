import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/platform/db/values.js';
import { wellFormedJson, wellFormedJsonValue, wellFormedText } from '../../src/lib/well-formed.js';

const R = '\uFFFD';
const HIGH = '\uD800';
const LOW = '\uDC00';
const PAIR = '\uD83D\uDE00'; // 😀

/** An independent reference: walk code points; NUL and surrogate code points (lone) become U+FFFD. */
function reference(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += code === 0 || (code >= 0xd800 && code <= 0xdfff) ? R : char;
  }
  return out;
}

function referenceValue(value: unknown): unknown {
  if (typeof value === 'string') return reference(value);
  if (Array.isArray(value)) return value.map(referenceValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [reference(k), referenceValue(v)]));
  }
  return value;
}

describe('wellFormedText', () => {
  it.each([
    ['', ''],
    ['plain ascii', 'plain ascii'],
    ['é ü ß 中文 ﬀ', 'é ü ß 中文 ﬀ'],
    [`valid pair ${PAIR}`, `valid pair ${PAIR}`],
    [`${PAIR}${PAIR}`, `${PAIR}${PAIR}`],
    [R, R],
    [`lone high at the end ${HIGH}`, `lone high at the end ${R}`],
    [`${HIGH}lone high first`, `${R}lone high first`],
    [`a${HIGH}b`, `a${R}b`],
    [`a${LOW}b`, `a${R}b`],
    [`${LOW}`, R],
    [`${HIGH}`, R],
    // A low then a high is no pair: both are lone.
    [`a${LOW}${HIGH}b`, `a${R}${R}b`],
    // Two highs then a low: the first high is lone, the second pairs with the low.
    [`${HIGH}\uD83D\uDE00`, `${R}${PAIR}`],
    // A high, then a pair: the pair's low belongs to the pair, the first high is lone.
    [`${HIGH}${HIGH}${LOW}`, `${R}${HIGH}${LOW}`],
    [`${HIGH}${LOW}${LOW}`, `${HIGH}${LOW}${R}`],
    ['a\u0000b', `a${R}b`],
    ['\u0000\u0000', `${R}${R}`],
    [`\u0000${HIGH}${PAIR}${LOW}\u0000`, `${R}${R}${PAIR}${R}${R}`],
    // Text that spells an escape is text, not a NUL or a surrogate.
    ['\\u0000 \\ud800 \\uDC00', '\\u0000 \\ud800 \\uDC00'],
    // Other control characters are valid text (JSON escapes them, jsonb accepts them).
    ['\u0001\u001f\t\n', '\u0001\u001f\t\n'],
  ])('%j → %j', (input, expected) => {
    expect(wellFormedText(input)).toBe(expected);
    expect(wellFormedText(input)).toBe(reference(input));
  });

  it('returns the very same string when there is nothing to replace', () => {
    const text = `nothing ${PAIR} to do`;
    expect(wellFormedText(text)).toBe(text);
  });
});

describe('wellFormedJsonValue', () => {
  it('keeps values that need no change as the very same objects', () => {
    const inner = { a: [1, 'x', { b: PAIR }], c: null, d: true };
    const value = { inner, list: [inner, 2.5] };
    expect(wellFormedJsonValue(value)).toBe(value);
    expect(wellFormedJsonValue('x')).toBe('x');
    expect(wellFormedJsonValue(3)).toBe(3);
    expect(wellFormedJsonValue(null)).toBe(null);
  });

  it('fixes keys and values at any depth, copying only the changed branches', () => {
    const untouched = { ok: 'yes' };
    const value = {
      untouched,
      [`k\u0000`]: `v${HIGH}`,
      nested: { deeper: [[`x${LOW}`], { [`${LOW}${HIGH}`]: ['\u0000'] }] },
    };
    const fixed = wellFormedJsonValue(value) as Record<string, any>;
    expect(fixed).toEqual({
      untouched: { ok: 'yes' },
      [`k${R}`]: `v${R}`,
      nested: { deeper: [[`x${R}`], { [`${R}${R}`]: [R] }] },
    });
    expect(fixed.untouched).toBe(untouched);
    // The input is not modified.
    expect(Object.keys(value)).toContain('k\u0000');
    expect(value.nested.deeper[0]).toEqual([`x${LOW}`]);
  });

  it('keeps a "__proto__" key as a key', () => {
    const value = JSON.parse(`{"__proto__": {"a": "\\u0000"}, "b": 1}`);
    const fixed = wellFormedJsonValue(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(fixed)).toBe(Object.prototype);
    expect(Object.keys(fixed)).toEqual(['__proto__', 'b']);
    expect(JSON.stringify(fixed)).toBe(`{"__proto__":{"a":"${R}"},"b":1}`);
  });

  it('two keys that become equal keep the later value, as JSON.parse does with duplicates', () => {
    expect(wellFormedJsonValue({ 'a\u0000': 1, [`a${R}`]: 2 })).toEqual({ [`a${R}`]: 2 });
  });
});

describe('wellFormedJson', () => {
  const json = (value: unknown) => wellFormedJson(JSON.stringify(value));

  it('returns the very same text when nothing needs replacing (the common case)', () => {
    const text = JSON.stringify({ $current_url: 'https://example.com/?q=a\\b', emoji: PAIR, tab: '\t', ctl: '\u0001', n: 1 });
    expect(wellFormedJson(text)).toBe(text);
  });

  it('keeps valid surrogate pairs', () => {
    expect(json({ [PAIR]: [PAIR] })).toBe(`{"${PAIR}":["${PAIR}"]}`);
  });

  it.each([
    ['a lone high surrogate', { a: `x${HIGH}` }, `{"a":"x${R}"}`],
    ['a lone low surrogate', { a: `${LOW}x` }, `{"a":"${R}x"}`],
    ['every lone surrogate escape (\\ud800–\\udfff)', { a: '\uD800\uDBFF\uDC00\uDFFF'.split('').join('-') }, `{"a":"${R}-${R}-${R}-${R}"}`],
    ['a reversed pair', { a: `${LOW}${HIGH}` }, `{"a":"${R}${R}"}`],
    ['a lone high before a pair', { a: `${HIGH}${PAIR}` }, `{"a":"${R}${PAIR}"}`],
    ['NUL in a value', { a: 'x\u0000y' }, `{"a":"x${R}y"}`],
    ['NUL in a key', { 'k\u0000': 1 }, `{"k${R}":1}`],
    ['a lone surrogate in a key', { [`k${HIGH}`]: 1 }, `{"k${R}":1}`],
    [
      'nested arrays and objects',
      { a: [{ b: [['\u0000', HIGH]] }], c: { d: { e: LOW } } },
      `{"a":[{"b":[["${R}","${R}"]]}],"c":{"d":{"e":"${R}"}}}`,
    ],
    ['a string at the top', `x\u0000`, `"x${R}"`],
    ['an array at the top', ['\u0000', 1, null], `["${R}",1,null]`],
  ])('replaces %s', (_name, value, expected) => {
    expect(json(value)).toBe(expected);
  });

  it('does not change text that only spells an escape (a user typed a backslash)', () => {
    for (const typed of ['\\u0000', '\\ud800', '\\udfff', '\\\\u0000', 'C:\\u0000dir', '\\u0000\\ud83d\\ude00']) {
      const text = JSON.stringify({ [typed]: typed, list: [typed] });
      // The fast check may match (a backslash then "u0000"); the result is still the same text.
      expect(wellFormedJson(text)).toBe(text);
      expect(JSON.parse(wellFormedJson(text))).toEqual({ [typed]: typed, list: [typed] });
    }
  });

  it('replaces the real characters next to a typed escape, and only them', () => {
    const value = { a: '\\u0000\u0000', b: `\\${HIGH}`, c: `\\\\${LOW}\\ud800` };
    expect(JSON.parse(json(value))).toEqual({ a: `\\u0000${R}`, b: `\\${R}`, c: `\\\\${R}\\ud800` });
  });

  it('writes JSON that jsonb accepts: no NUL or surrogate escape is left', () => {
    const fixed = json({ [`\u0000${HIGH}`]: [`${LOW}`, { x: '\u0000' }] });
    expect(fixed).not.toMatch(/(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/i);
  });

  it('agrees with an independent reference on random strings', () => {
    const alphabet = ['a', '\\', 'u', '0', 'd', '8', '"', '\u0000', HIGH, LOW, '\uD83D', '\uDE00', PAIR, 'é', '\n'];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const randomString = () => Array.from({ length: random(12) }, () => alphabet[random(alphabet.length)]).join('');
    for (let i = 0; i < 2000; i++) {
      const value = { [randomString()]: randomString(), list: [randomString(), { [randomString()]: [randomString()] }] };
      const text = JSON.stringify(value);
      expect(wellFormedJson(text)).toBe(JSON.stringify(referenceValue(value)));
    }
  });
});

describe('toJson', () => {
  it('writes well-formed JSON for every JSON column', () => {
    expect(toJson({ name: `a\u0000b${HIGH}`, [`k${LOW}`]: [PAIR] })).toBe(`{"name":"a${R}b${R}","k${R}":["${PAIR}"]}`);
    expect(toJson(undefined)).toBe('null');
    expect(toJson({ plain: 'text' })).toBe('{"plain":"text"}');
  });
});
