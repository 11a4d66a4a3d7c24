/**
 * Text the database stores the same on both backends. Two things in a JavaScript string are not
 * stored as they are:
 *   - a lone UTF-16 surrogate (a high one not followed by a low one, or a low one not preceded by
 *     a high one): both drivers encode strings to UTF-8 and write U+FFFD instead, so the row no
 *     longer matches the string it was written from (a later lookup by that string misses);
 *   - NUL: PostgreSQL refuses it in text, and jsonb refuses the `\u0000` escape (and lone surrogate
 *     escapes such as `\ud800`) in JSON text, while SQLite stores them.
 * Like PostHog (which replaces NUL with U+FFFD in distinct ids and strings for Postgres), both
 * become U+FFFD, the replacement character, before anything is stored.
 */

const REPLACEMENT = '\uFFFD';
/** Anything that may need replacing: a cheap test that is almost always false. */
const SUSPECT = /[\0\uD800-\uDFFF]/;
/** NUL, a high surrogate without a low one after it, a low surrogate without a high one before it. */
const ILL_FORMED = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The string with NUL and lone surrogates replaced by U+FFFD; the same string when it has none. */
export function wellFormedText(text: string): string {
  return SUSPECT.test(text) ? text.replace(ILL_FORMED, REPLACEMENT) : text;
}

/**
 * A JSON value (as JSON.parse returns it) with every string, object keys included, at any depth,
 * made well-formed. Parts that need no change are returned as they are (the very same objects).
 * Two keys that become equal keep the later one's value, as JSON.parse does with duplicate keys.
 */
export function wellFormedJsonValue(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const fixed = wellFormedJsonValue(item);
      if (fixed !== item) (copy ??= value.slice())[i] = fixed;
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    let changed = false;
    const fixedEntries = entries.map(([key, item]): [string, unknown] => {
      const fixedKey = wellFormedText(key);
      const fixed = wellFormedJsonValue(item);
      if (fixedKey !== key || fixed !== item) changed = true;
      return [fixedKey, fixed];
    });
    // fromEntries defines own properties: a "__proto__" key stays a key.
    return changed ? Object.fromEntries(fixedEntries) : value;
  }
  return value;
}

/**
 * What JSON.stringify writes for a NUL (`\u0000`) or a lone surrogate (`\ud800`–`\udfff`, always
 * lower-case hex; valid pairs are written as the characters themselves). It may also match text a
 * user typed (a backslash followed by `u0000`, written `\\u0000`): then the slow path finds
 * nothing to change, which is only a little slower, never wrong.
 */
const MAYBE_ILL_FORMED_JSON = /\\u(?:0000|d[89a-f])/;

/**
 * JSON text as JSON.stringify wrote it, made well-formed: the same text unless some string in it
 * (a key or a value, at any depth) holds NUL or a lone surrogate, which become U+FFFD. Costs one
 * scan of the text; only text that holds such an escape is parsed, fixed and written again.
 */
export function wellFormedJson(text: string): string {
  if (!MAYBE_ILL_FORMED_JSON.test(text)) return text;
  const value: unknown = JSON.parse(text);
  const fixed = wellFormedJsonValue(value);
  return fixed === value ? text : JSON.stringify(fixed);
}
