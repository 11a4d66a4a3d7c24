import type { QueryParams } from './engine.js';

/**
 * ClickHouse SQL with its values bound as parameters, composed like Kysely's `sql`: a value put in
 * the template becomes a typed `{pN:Type}` placeholder, never text in the statement; a fragment
 * (another `ch` template, `raw`, `join`) is spliced in with its own parameters.
 */
export class ChSql {
  constructor(
    readonly parts: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The statement and its parameters. */
  compile(): { sql: string; params: QueryParams } {
    const params: QueryParams = {};
    let counter = 0;
    const walk = (fragment: ChSql): string => {
      let text = fragment.parts[0]!;
      for (let i = 0; i < fragment.values.length; i++) {
        const value = fragment.values[i];
        if (value instanceof ChSql) text += walk(value);
        else {
          const name = `p${counter++}`;
          const typed = value instanceof Typed ? value : new Typed(typeOf(value), value);
          params[name] = serialise(typed.value);
          text += `{${name}:${typed.type}}`;
        }
        text += fragment.parts[i + 1]!;
      }
      return text;
    };
    return { sql: walk(this), params };
  }
}

/** A value with the ClickHouse type it is bound as. */
export class Typed {
  constructor(
    readonly type: string,
    readonly value: unknown,
  ) {}
}

export function ch(parts: TemplateStringsArray, ...values: unknown[]): ChSql {
  return new ChSql([...parts], values);
}

/** SQL text as it is (identifiers and keywords Hoglet chose, never a user's value). */
export function raw(text: string): ChSql {
  return new ChSql([text], []);
}

export function join(fragments: readonly ChSql[], separator = ', '): ChSql {
  if (fragments.length === 0) return raw('');
  const parts = ['', ...fragments.slice(1).map(() => separator), ''];
  return new ChSql(parts, fragments);
}

export function typed(type: string, value: unknown): Typed {
  return new Typed(type, value);
}

/** An instant as ClickHouse reads a DateTime64 parameter (UTC, microseconds). */
export function chTime(value: Date | string): Typed {
  return new Typed("DateTime64(6, 'UTC')", toClickHouseTime(value));
}

const UTC_TEXT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;
/** DateTime64's range: an instant past it is read as its nearest end (no event is stored beyond). */
const FIRST_TIME = Date.UTC(1900, 0, 1);
const LAST_TIME = Date.UTC(2299, 11, 31, 23, 59, 59, 999);

export function toClickHouseTime(value: Date | string): string {
  const text = typeof value === 'string' ? UTC_TEXT.exec(value) : null;
  const match =
    text && (!text[4] || text[4] === 'Z')
      ? text
      : UTC_TEXT.exec(new Date(Math.min(Math.max(new Date(value).getTime(), FIRST_TIME), LAST_TIME)).toISOString())!;
  return `${match[1]} ${match[2]}${(match[3] ?? '.').padEnd(7, '0').slice(0, 7)}`;
}

/** A DateTime64 as ClickHouse answers it (`date_time_output_format=iso`) as Hoglet's ISO text, to the millisecond unless more was stored. */
export function fromClickHouseTime(value: string): string {
  const match = /^(.*\.\d{3})(\d{3})Z$/.exec(value);
  if (!match) return value;
  return match[2] === '000' ? `${match[1]}Z` : value;
}

function typeOf(value: unknown): string {
  if (typeof value === 'string') return 'String';
  if (typeof value === 'boolean') return 'Bool';
  if (typeof value === 'bigint') return 'Int64';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Int64' : 'Float64';
  if (value instanceof Date) return "DateTime64(6, 'UTC')";
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return 'Array(String)';
    if (value.every((v) => typeof v === 'number' && Number.isInteger(v))) return 'Array(Int64)';
    if (value.every((v) => typeof v === 'number')) return 'Array(Float64)';
  }
  throw new Error(`no ClickHouse parameter type for ${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`);
}

function serialise(value: unknown): unknown {
  if (value instanceof Date) return toClickHouseTime(value);
  if (typeof value === 'bigint') return value.toString();
  return value;
}
