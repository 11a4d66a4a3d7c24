/**
 * Python's `json.dumps(value, sort_keys=True)` for a parsed JSON value, as PostHog prints objects
 * and arrays it names (`convert_property_value`): `{"a": 1, "b": [1, 2]}` (", " and ": "
 * separators), keys sorted by code point, non-ASCII escaped (`ensure_ascii`), floats as Python's
 * `repr` prints them (`1e-05`, `1.5e-07`).
 */
import { pythonRepr } from './python-text.js';

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** `json.dumps` of a string with `ensure_ascii`: printable ASCII as is, everything else escaped per UTF-16 unit. */
export function pythonJsonString(text: string): string {
  let out = '"';
  for (const unit of text.split('')) {
    const code = unit.charCodeAt(0);
    const short = SHORT_ESCAPES[unit];
    if (short !== undefined) out += short;
    else if (code >= 0x20 && code <= 0x7e) out += unit;
    else out += `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out + '"';
}

/** Python compares str by code point; JavaScript's `<` compares UTF-16 units (astral characters sort apart). */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return pythonRepr(value);
  if (typeof value === 'string') return pythonJsonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => byCodePoint(a, b));
  return `{${entries.map(([k, v]) => `${pythonJsonString(k)}: ${pythonJsonDumps(v)}`).join(', ')}}`;
}
