/**
 * The few Python built-ins PostHog's API inputs go through (the events, persons and groups APIs,
 * cohort ids), so Hoglet accepts and refuses the same texts: `int(text)` and the
 * whitespace `str.isspace` (and so the regex `\s`) knows.
 */
import { pythonStr } from './python-text.js';

/** Python's whitespace (`str.isspace`), which differs from JavaScript's `\s` (\x1c-\x1f, \x85; no \ufeff). */
const PY_SPACE = new Set(
  [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000].concat(
    Array.from({ length: 11 }, (_, i) => 0x2000 + i),
  ),
);

export function isPySpace(char: string): boolean {
  return PY_SPACE.has(char.charCodeAt(0));
}

/** `str.strip()`, walking in from both ends (a regex anchored at the end rescans every inner run of spaces: quadratic). */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPySpace(text[start]!)) start++;
  while (end > start && isPySpace(text[end - 1]!)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Python's `int(text)` in base 10: surrounding whitespace, a sign, and digits with single
 * underscores between them ("1_000"). Null where Python raises ValueError. Only ASCII digits:
 * Python also reads other scripts' decimal digits, which no client sends here.
 */
export function pyInt(text: string): number | null {
  const m = /^([+-]?)([0-9](?:_?[0-9])*)$/.exec(pythonStrip(text));
  if (!m) return null;
  const n = Number(m[2]!.replace(/_/g, ''));
  return m[1] === '-' ? -n || 0 : n; // "-0" is 0
}

/** Django's `request.GET.get(name)`: the last of repeated parameters, undefined when absent. */
export function queryParam(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (Array.isArray(value)) return value.length ? String(value[value.length - 1]) : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Python's truthiness of a JSON value (`bool(value)`, `if value:`): null, false, 0, "", [] and {}
 * are false, anything else true ("false" and "0" as text too).
 */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === 'number' || typeof value === 'string') return value !== 0 && value !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/**
 * PostHog's `posthog.utils.str_to_bool`, which it applies to some query parameters and to a
 * property's `negation`: true only for a few lower-cased spellings; anything else is false.
 */
export function strToBool(value: unknown): boolean {
  return pyTruthy(value) && ['y', 'yes', 't', 'true', 'on', '1'].includes(pythonStr(value).toLowerCase());
}
