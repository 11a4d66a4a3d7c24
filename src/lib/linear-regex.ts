/**
 * Regular expressions that users write (flag and cohort conditions, persons list filters,
 * insight filters, channel rules, path cleaning), run without backtracking.
 *
 * PostHog runs these patterns on engines whose time is linear in the input: ClickHouse's
 * `match`/`replaceRegexpAll` use RE2, and the flags service's fancy-regex hands every pattern
 * without look-around or back-references to Rust's `regex` crate. V8's own engine backtracks:
 * `(a+)+$` against forty `a`s and a `!` would hold the event loop for minutes, and with it every
 * request of the process. So these patterns run on re2js, a port of RE2 to JavaScript, whose
 * syntax is RE2's (Rust's regex syntax nearly everywhere: `(?i)`, `(?P<name>…)`, `\p{L}`,
 * `[[:alpha:]]`, `{m,n}` up to 1000; no look-around, no back-references).
 */
import { RE2JS } from 're2js';

export interface LinearRegex {
  /** Whether the pattern matches anywhere in `text` (unanchored, as `match` and `is_match`). */
  test(text: string): boolean;
  /**
   * ClickHouse's `replaceRegexpAll(text, pattern, replacement)`: every match replaced, where
   * `\0` is the whole match, `\1`…`\9` a group (empty when it took no part) and `\\` a backslash.
   */
  replaceAll(text: string, replacement: string): string;
}

/** Compiled patterns by flag and source (null: invalid); bounded, as patterns come from users. */
const cache = new Map<string, LinearRegex | null>();
const CACHE_LIMIT = 1000;

/**
 * The pattern compiled for linear-time matching, or null when RE2 does not accept it. RE2's
 * defaults (`.` stops at a newline), as Rust's regex crate has them: for the flag engine.
 */
export function compileLinearRegex(pattern: string): LinearRegex | null {
  return compile(pattern, false, true);
}

/**
 * The pattern as ClickHouse's `match` and `replaceRegexpAll` read it: RE2 with `.` matching a
 * newline too (ClickHouse turns that on; `(?-s)` turns it off again), in linear time. For
 * everything PostHog evaluates in ClickHouse: persons and events filters, insights, channel
 * rules, path cleaning.
 */
export function compileClickHouseRegex(pattern: string): LinearRegex | null {
  return compile(pattern, true, false);
}

/** `rustEscapes`: read `\u` escapes as Rust does (the flag engine); ClickHouse's RE2 refuses them. */
function compile(pattern: string, dotMatchesNewline: boolean, rustEscapes: boolean): LinearRegex | null {
  const key = `${dotMatchesNewline ? 's' : '-'}${rustEscapes ? 'u' : '-'}${pattern}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let compiled: LinearRegex | null;
  try {
    compiled = wrap(RE2JS.compile(rustEscapes ? rustEscapesToRe2(pattern) : pattern, dotMatchesNewline ? RE2JS.DOTALL : 0));
  } catch {
    // re2js throws its syntax exception for invalid patterns (and RangeError-like errors for
    // patterns over its size limits): either way, not a pattern that can run.
    compiled = null;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

function wrap(regex: RE2JS): LinearRegex {
  const groupCount = regex.groupCount();
  return {
    test: (text) => regex.test(text),
    replaceAll: (text, replacement) =>
      regex
        .matcher(text)
        .replaceAll((match: string, ...rest: unknown[]) => expandClickHouseReplacement(replacement, match, rest.slice(0, groupCount))),
  };
}

/**
 * `\1`-style references of a ClickHouse replacement, expanded for one match: `groups` are the
 * pattern's groups (null where a group took no part); a number past them inserts nothing.
 */
function expandClickHouseReplacement(replacement: string, match: string, groups: unknown[]): string {
  if (!replacement.includes('\\')) return replacement;
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const ch = replacement[i]!;
    const next = replacement[i + 1];
    if (ch === '\\' && next !== undefined && next >= '0' && next <= '9') {
      const n = next.charCodeAt(0) - 48;
      const group = n === 0 ? match : groups[n - 1];
      if (typeof group === 'string') out += group;
      i++;
    } else if (ch === '\\' && next === '\\') {
      out += '\\';
      i++;
    } else {
      out += ch;
    }
  }
  return out;
}

/**
 * Rust's regex syntax writes code points as `\u00E9`, `\u{E9}` and `\U0001F600` too; RE2 only as
 * `\x{E9}`. Rewritten outside character-class subtleties: an escaped backslash (`\\u`) is left.
 */
function rustEscapesToRe2(pattern: string): string {
  if (!/\\[uU]/.test(pattern)) return pattern;
  return pattern.replace(
    /\\\\|\\u\{([0-9A-Fa-f]{1,8})\}|\\u([0-9A-Fa-f]{4})|\\U\{([0-9A-Fa-f]{1,8})\}|\\U([0-9A-Fa-f]{8})/g,
    (whole, a, b, c, d) => (whole === '\\\\' ? whole : `\\x{${a ?? b ?? c ?? d}}`),
  );
}
