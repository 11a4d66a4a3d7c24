/**
 * How Python's `str()` prints a JSON value, for error messages PostHog builds with f-strings
 * (`Invalid value for operator gt: 5`, `... : ['a', 'b']`, `... : True`).
 */
export function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  return pythonRepr(value);
}

export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pythonFloat(value);
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${quote(k)}: ${pythonRepr(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return String(value);
}

function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** Python prefers single quotes, and switches to double quotes when the text holds a single quote only. */
function quote(text: string): string {
  const escaped = text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  if (text.includes("'") && !text.includes('"')) return `"${escaped}"`;
  return `'${escaped.replace(/'/g, "\\'")}'`;
}
