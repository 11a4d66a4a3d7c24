/**
 * DRF words its errors with Python's view of the input; these render a JSON value the way those
 * messages show it, so Hoglet's texts match PostHog's to the letter.
 */

/** Python's `type(x).__name__` for a JSON value. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

/**
 * Python's `str(x)` for a JSON value, as f-strings and DRF messages print the offending input
 * (`Invalid value for operator gt: 5`, `"['a', 'b']" is not a valid choice.`).
 */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

/** Python's `repr(x)` for a JSON value (strings quoted, containers show their items' reprs). */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return pythonQuote(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonQuote(k)}: ${pythonRepr(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return String(value);
}

/**
 * JSON integers parse to Python ints (printed in full); other numbers are floats, printed by
 * `repr` with the shortest round-trip digits (the same digits JavaScript picks), in positional
 * form for decimal exponents -4..15 and as `d.ddde±XX` (at least two exponent digits) beyond.
 */
function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  // From 1e21 on, JavaScript clients send exponent notation, which Python reads as a float.
  if (Number.isInteger(value) && Math.abs(value) < 1e21 && !Object.is(value, -0)) return String(value);
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const digits = exponent < 0 ? `-${String(-exponent).padStart(2, '0')}` : `+${String(exponent).padStart(2, '0')}`;
    return `${mantissa}e${digits}`;
  }
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let text: string;
  if (exponent < 0) text = `0.${'0'.repeat(-exponent - 1)}${digits}`;
  else if (digits.length > exponent + 1) text = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  else text = `${digits}${'0'.repeat(exponent + 1 - digits.length)}.0`;
  return negative ? `-${text}` : text;
}

/** Python prefers single quotes, and switches to double quotes when the text holds a single quote only. */
function pythonQuote(text: string): string {
  const escaped = text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  if (text.includes("'") && !text.includes('"')) return `"${escaped}"`;
  return `'${escaped.replace(/'/g, "\\'")}'`;
}
