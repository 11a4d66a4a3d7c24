/**
 * `{name:Type}` parameters written into the statement as literals, as ClickHouse itself does when
 * it binds them (ReplaceQueryParameterVisitor): a String becomes a string literal, any other type
 * `_CAST(literal, 'Type')`. chdb runs bound statements one at a time in the whole process (their
 * parameters are process state), statements without parameters side by side: inlined, the
 * process's analytics queries run at once, as many as the engine has connections.
 *
 * A value only ever becomes a quoted string literal (escaped) or digits checked by a pattern, so
 * it cannot change the statement. Where the same meaning is not certain (a type not listed here, a
 * value of the wrong kind, a parameter not given), the statement is left to binding: `undefined`.
 * Placeholders inside string literals, quoted names and comments are text, as ClickHouse reads them.
 */
import type { QueryParams } from './engine.js';

/**
 * The longest statement written: ClickHouse parses at most `max_query_size` (256 KiB by default)
 * of a statement's text, and bound values do not count towards it, inlined ones do. A statement
 * with long lists (a person's events to delete, the distinct ids of a person filter) stays bound.
 */
export const MAX_INLINED_LENGTH = 200_000;

/** The statement with its parameters written in, or undefined when it must be bound instead. */
export function inlineParams(sql: string, params: QueryParams): string | undefined {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') {
      const end = quotedEnd(sql, i);
      if (end === -1) return undefined;
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      i = lineEnd(sql, i);
    } else if (c === '#' && (sql[i + 1] === ' ' || sql[i + 1] === '!')) {
      i = lineEnd(sql, i);
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = blockCommentEnd(sql, i);
      if (end === -1) return undefined;
      i = end;
    } else if (c === '$' && !/[A-Za-z0-9_$]/.test(sql[i - 1] ?? '')) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 200));
      if (tag) {
        // A heredoc string ($$…$$, $tag$…$tag$).
        const close = sql.indexOf(tag[0], i + tag[0].length);
        if (close === -1) return undefined;
        i = close + tag[0].length;
      } else i++;
    } else if (c === '{') {
      const placeholder = readPlaceholder(sql, i);
      if (placeholder === null) {
        i++;
        continue;
      }
      if (placeholder === undefined) return undefined;
      if (!Object.hasOwn(params, placeholder.name)) return undefined;
      const literal = inlineValue(placeholder.type, params[placeholder.name]);
      if (literal === undefined) return undefined;
      out += sql.slice(copied, i) + literal;
      if (out.length > MAX_INLINED_LENGTH) return undefined;
      i = copied = placeholder.end;
    } else i++;
  }
  out += sql.slice(copied);
  // Characters, not bytes: a statement of many multi-byte characters is checked on its bytes.
  return out.length > MAX_INLINED_LENGTH / 4 && Buffer.byteLength(out) > MAX_INLINED_LENGTH ? undefined : out;
}

/** The end (exclusive) of the quoted text starting at `start`: `\` escapes a character, a doubled quote is one. */
function quotedEnd(sql: string, start: number): number {
  const quote = sql[start];
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] === '\\') i++;
    else if (sql[i] === quote) {
      if (sql[i + 1] === quote) i++;
      else return i + 1;
    }
  }
  return -1;
}

function lineEnd(sql: string, start: number): number {
  const end = sql.indexOf('\n', start);
  return end === -1 ? sql.length : end + 1;
}

/** Block comments nest in ClickHouse. */
function blockCommentEnd(sql: string, start: number): number {
  let depth = 0;
  for (let i = start; i < sql.length - 1; i++) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i++;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * The placeholder at `start` (a `{`): null when the brace starts something else, undefined when it
 * is a placeholder this cannot read.
 */
function readPlaceholder(sql: string, start: number): { name: string; type: Type; end: number } | null | undefined {
  const head = /^\{\s*([A-Za-z0-9_]+)\s*:/.exec(sql.slice(start, start + 200));
  if (!head) return null;
  let depth = 0;
  for (let i = start + head[0].length; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'") {
      const end = quotedEnd(sql, i);
      if (end === -1) return undefined;
      i = end - 1;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '}' && depth === 0) {
      const type = parseType(sql.slice(start + head[0].length, i));
      return type ? { name: head[1]!, type, end: i + 1 } : undefined;
    }
  }
  return undefined;
}

/** The types inlined; any other is bound. */
export type Type =
  | { kind: 'String' | 'Bool' | 'UUID' | 'Date' | 'Date32' | 'Float32' | 'Float64'; text: string }
  | { kind: 'Int'; text: string; min: bigint; max: bigint }
  | { kind: 'DateTime'; text: string; precision: number }
  | { kind: 'Nullable' | 'Array'; text: string; of: Type };

const SIMPLE = new Set(['String', 'Bool', 'UUID', 'Date', 'Date32', 'Float32', 'Float64']);
/** A time zone name as a quoted literal (IANA names: letters, digits, `/_+-`). */
const ZONE = String.raw`'[A-Za-z0-9/_+-]{1,64}'`;

export function parseType(input: string): Type | undefined {
  const text = input.trim();
  if (SIMPLE.has(text)) return { kind: text as 'String', text };
  if (text === 'Boolean') return { kind: 'Bool', text };
  const int = /^(U?)Int(8|16|32|64|128|256)$/.exec(text);
  if (int) {
    const bits = BigInt(int[2]!);
    return int[1]
      ? { kind: 'Int', text, min: 0n, max: 2n ** bits - 1n }
      : { kind: 'Int', text, min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n };
  }
  if (new RegExp(`^DateTime(\\(\\s*${ZONE}\\s*\\))?$`).test(text)) return { kind: 'DateTime', text, precision: 0 };
  const dt64 = new RegExp(`^DateTime64\\(\\s*(\\d)\\s*(,\\s*${ZONE}\\s*)?\\)$`).exec(text);
  if (dt64) return { kind: 'DateTime', text, precision: Number(dt64[1]) };
  const wrapped = /^(Nullable|Array)\((.*)\)$/s.exec(text);
  if (wrapped) {
    const of = parseType(wrapped[2]!);
    // Nullable(Nullable(…)) and Nullable(Array(…)) are not types ClickHouse makes.
    if (!of || (wrapped[1] === 'Nullable' && (of.kind === 'Nullable' || of.kind === 'Array'))) return undefined;
    return { kind: wrapped[1] as 'Array', text, of };
  }
  return undefined;
}

/** `s` as a ClickHouse string literal: only `\` and `'` could end it; control characters are escaped to stay readable. */
export function quoteString(s: string): string {
  return `'${s.replace(/[\\'\0\b\f\n\r\t]/g, (c) => ESCAPES[c]!)}'`;
}
const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** The value of a `{name:Type}` placeholder as SQL, or undefined when it must be bound. */
export function inlineValue(type: Type, value: unknown): string | undefined {
  if (type.kind === 'String') return typeof value === 'string' ? quoteString(value) : undefined;
  const inner = type.kind === 'Nullable' ? type.of : type;
  let literal: string;
  if (type.kind === 'Nullable' && (value === null || value === undefined)) literal = 'NULL';
  else {
    const text = valueText(inner, value);
    if (text === undefined) return undefined;
    // Integers and booleans as literals (what ClickHouse casts when it binds them, the digits
    // checked); the rest as quoted text cast to the type, read by the parser a bound value is.
    literal = inner.kind === 'Int' || inner.kind === 'Bool' ? text : quoteString(text);
  }
  return `_CAST(${literal}, ${quoteString(type.text)})`;
}

/**
 * The value as ClickHouse's text of the type (the text a bound value is read from: chdb's
 * formatParamValue), for the kinds of value the type takes. Inside an array (`nested`), strings
 * are quoted and a Nullable's null is `NULL`.
 */
function valueText(type: Type, value: unknown, nested = false): string | undefined {
  switch (type.kind) {
    case 'Nullable':
      if (!nested) return undefined; // read by inlineValue
      return value === null || value === undefined ? 'NULL' : valueText(type.of, value, nested);
    case 'String':
      return typeof value === 'string' ? quotedIf(nested, value) : undefined;
    case 'Bool':
      return typeof value === 'boolean' ? String(value) : undefined;
    case 'Int':
      return integerText(value, type.min, type.max);
    case 'Float32':
    case 'Float64':
      // Integers beyond 2^53 have lost digits already (chdb refuses them too).
      return typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))
        ? String(value)
        : undefined;
    case 'UUID':
      return typeof value === 'string' && /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(value)
        ? quotedIf(nested, value)
        : undefined;
    case 'Date':
    case 'Date32':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? quotedIf(nested, value) : undefined;
    case 'DateTime': {
      const time = value instanceof Date ? dateText(value) : value;
      if (typeof time !== 'string') return undefined;
      const match = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.(\d+))?$/.exec(time);
      // Digits beyond the type's precision are read differently by a cast and a bound value: bound.
      if (!match || (match[1] !== undefined && (type.precision === 0 || match[1].length > type.precision))) return undefined;
      return quotedIf(nested, time);
    }
    case 'Array': {
      if (!Array.isArray(value)) return undefined;
      const items: string[] = [];
      for (const item of value) {
        const text = valueText(type.of, item, true);
        if (text === undefined) return undefined;
        items.push(text);
      }
      return `[${items.join(',')}]`;
    }
  }
}

const quotedIf = (nested: boolean, text: string) => (nested ? quoteString(text) : text);

function integerText(value: unknown, min: bigint, max: bigint): string | undefined {
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  // Digits as ClickHouse reads a bound integer: a leading zero ends the number (`007` is refused).
  else if (typeof value === 'string' && /^-?(0|[1-9]\d{0,79})$/.test(value)) n = BigInt(value);
  else return undefined;
  // Out of range: a cast would wrap around where binding refuses. Beyond 64 bits ClickHouse reads
  // an integer literal as a Float64: such a value stays bound.
  if (n < min || n > max || n < -(2n ** 63n) || n >= 2n ** 64n) return undefined;
  return n.toString();
}

/** A Date as chdb binds it: UTC, to the second. */
function dateText(d: Date): string | undefined {
  if (Number.isNaN(d.getTime())) return undefined;
  return d.toISOString().slice(0, 19).replace('T', ' ');
}
