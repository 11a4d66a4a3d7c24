import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'chdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_SETTINGS } from '../../src/platform/analytics/engine.js';
import { MAX_INLINED_LENGTH, inlineParams, parseType } from '../../src/platform/analytics/inline-params.js';
import { ch, chTime, typed } from '../../src/platform/analytics/sql.js';

/** Every placeholder type Hoglet's SQL uses: sql.ts's own (typeOf, chTime), typed(…) and literal ones, found in src. */
function typesInSource(): Set<string> {
  const types = new Set(['String', 'Bool', 'Int64', 'Float64', "DateTime64(6, 'UTC')", 'Array(String)', 'Array(Int64)', 'Array(Float64)']);
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of walk('src').filter((f) => f.endsWith('.ts'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\{[A-Za-z0-9_]+:([A-Z][^{}]*)\}/g)) if (m[1] !== 'Type') types.add(m[1]!);
    for (const m of text.matchAll(/typed\(\s*'([^']+)'/g)) types.add(m[1]!);
    for (const m of text.matchAll(/=\s*'((?:Array|Nullable)\([A-Za-z0-9]+\))';/g)) types.add(m[1]!);
  }
  return types;
}

const UUID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
/** A value of each type, as sql.ts hands it to the engine. */
const SAMPLE: Record<string, unknown> = {
  String: 'a',
  Bool: true,
  Int64: 42,
  UInt32: 202611,
  Float64: 1.5,
  "DateTime64(6, 'UTC')": '2026-01-02 03:04:05.123456',
  'Array(String)': ['a', 'b'],
  'Array(Int64)': [1, -2],
  'Array(Float64)': [0.5, 2],
  UUID,
  'Array(UUID)': [UUID],
};

const NASTY_STRINGS = [
  '',
  "x' OR 1=1 --",
  "x\\' OR 1=1 --",
  '\\',
  "\\'",
  "'; DROP TABLE t; --",
  "it's",
  "''",
  'a\0b',
  '\0',
  'line\nbreak\r\n',
  'tab\there',
  '\b\f\v',
  '{p1:String}',
  '{v:String}',
  '}{',
  '/* not a comment */ -- nor this',
  '$$heredoc$$',
  'ünïcødé ✓ 日本語',
  '😀 emoji, surrogate pairs',
  '\u2028\u2029',
  '"double" `back`',
  '\\N',
  'NULL',
  '\\x41\\u0041',
];

describe('inlineParams (pure)', () => {
  it('inlines every placeholder type Hoglet uses', () => {
    const types = typesInSource();
    expect(types).toContain('Array(UUID)');
    expect(types).toContain('Int64');
    for (const type of types) {
      expect(parseType(type), type).toBeDefined();
      expect(SAMPLE, `a sample value for ${type}`).toHaveProperty([type]);
      expect(inlineParams(`SELECT {v:${type}}`, { v: SAMPLE[type] }), type).toMatch(/^SELECT [^{]+$/);
    }
  });

  it('writes strings as escaped literals and other types as casts', () => {
    expect(inlineParams('SELECT {a:String}, {b:Int64}, {c:Bool}', { a: "it's \\ here\n", b: -7, c: false })).toBe(
      "SELECT 'it\\'s \\\\ here\\n', _CAST(-7, 'Int64'), _CAST(false, 'Bool')",
    );
    expect(inlineParams("SELECT {t:DateTime64(6, 'UTC')}", { t: '2026-01-02 03:04:05.123000' })).toBe(
      "SELECT _CAST('2026-01-02 03:04:05.123000', 'DateTime64(6, \\'UTC\\')')",
    );
    expect(inlineParams('SELECT {a:Array(String)}, {n:Array(Int64)}', { a: ["o'k", 'b'], n: [] })).toBe(
      "SELECT _CAST('[\\'o\\\\\\'k\\',\\'b\\']', 'Array(String)'), _CAST('[]', 'Array(Int64)')",
    );
    expect(inlineParams('SELECT {f:Float64}, {g:Float64}', { f: 0.1, g: 1e-7 })).toBe(
      "SELECT _CAST('0.1', 'Float64'), _CAST('1e-7', 'Float64')",
    );
  });

  it('reads the output of ch templates, one placeholder a value', () => {
    const { sql, params } =
      ch`SELECT ${'x'} AS a, ${[1, 2]} AS b, ${chTime('2026-01-02T03:04:05.123Z')} AS c, ${typed('Array(UUID)', [UUID])} AS d`.compile();
    expect(inlineParams(sql, params)).toBe(
      `SELECT 'x' AS a, _CAST('[1,2]', 'Array(Int64)') AS b, _CAST('2026-01-02 03:04:05.123000', 'DateTime64(6, \\'UTC\\')') AS c, _CAST('[\\'${UUID}\\']', 'Array(UUID)') AS d`,
    );
  });

  it('never reads a value as SQL: a placeholder in a value stays text', () => {
    expect(inlineParams('SELECT {a:String}, {b:String}', { a: '{b:String}', b: 'x' })).toBe("SELECT '{b:String}', 'x'");
  });

  it('leaves placeholders inside literals, quoted names and comments as they are', () => {
    const sql = [
      "SELECT '{v:String}', 'it''s {v:String}', 'a\\'{v:String}'",
      '"{v:String}", `{v:String}`',
      '-- {v:String}',
      '# {v:String}',
      '/* {v:String} /* nested {v:String} */ {v:String} */',
      '$$ {v:String} $$, $tag$ {v:String} $tag$, {v:String}',
    ].join('\n');
    const out = inlineParams(sql, { v: 'X' })!;
    expect(out).toBe(sql.replace(/\{v:String\}$/, "'X'"));
    // `$` inside a name does not start a heredoc.
    expect(inlineParams('SELECT a$b, {v:String}', { v: 'X' })).toBe("SELECT a$b, 'X'");
  });

  it('leaves braces that are not placeholders', () => {
    expect(inlineParams("SELECT {'a': 1}, {v:Int64}", { v: 1 })).toBe("SELECT {'a': 1}, _CAST(1, 'Int64')");
    expect(inlineParams('SELECT { v : Int64 }', { v: 1 })).toBe("SELECT _CAST(1, 'Int64')");
  });

  it('reads Nullable types: null as NULL, a string "NULL" as text', () => {
    expect(inlineParams('SELECT {a:Nullable(String)}, {b:Nullable(Int64)}', { a: null, b: undefined })).toBe(
      "SELECT _CAST(NULL, 'Nullable(String)'), _CAST(NULL, 'Nullable(Int64)')",
    );
    expect(inlineParams('SELECT {a:Nullable(String)}, {b:Nullable(Int64)}', { a: 'NULL', b: 3 })).toBe(
      "SELECT _CAST('NULL', 'Nullable(String)'), _CAST(3, 'Nullable(Int64)')",
    );
    expect(inlineParams('SELECT {a:Array(Nullable(String))}', { a: ['x', null] })).toBe(
      "SELECT _CAST('[\\'x\\',NULL]', 'Array(Nullable(String))')",
    );
  });

  it('reads integers as numbers, bigints and digits, within their type', () => {
    expect(
      inlineParams('SELECT {a:Int64}, {b:Int64}, {c:UInt64}, {d:Int8}', {
        a: 9223372036854775807n,
        b: '-9223372036854775808',
        c: '18446744073709551615',
        d: -128,
      }),
    ).toBe(
      "SELECT _CAST(9223372036854775807, 'Int64'), _CAST(-9223372036854775808, 'Int64'), _CAST(18446744073709551615, 'UInt64'), _CAST(-128, 'Int8')",
    );
  });

  it('leaves integers beyond 64 bits to binding (ClickHouse reads such a literal as a Float64)', () => {
    expect(inlineParams('SELECT {a:Int128}', { a: '170141183460469231731687303715884105727' })).toBeUndefined();
    expect(inlineParams('SELECT {a:UInt256}', { a: 2n ** 64n })).toBeUndefined();
    expect(inlineParams('SELECT {a:Int128}', { a: 5 })).toBe("SELECT _CAST(5, 'Int128')");
  });

  it('leaves a statement longer than ClickHouse parses to binding, in characters or in bytes', () => {
    const ids = Array.from({ length: 8000 }, (_, i) => `distinct-id-${i}-${'x'.repeat(20)}`);
    expect(inlineParams('SELECT {ids:Array(String)}', { ids })).toBeUndefined();
    expect(inlineParams('SELECT {s:String}', { s: 'é'.repeat(MAX_INLINED_LENGTH / 2 + 100) })).toBeUndefined();
    expect(inlineParams('SELECT {ids:Array(String)}', { ids: ids.slice(0, 100) })).toContain('distinct-id-99-');
  });

  it('leaves to binding what it cannot write with the same meaning', () => {
    const bound: Array<[string, unknown]> = [
      ['Int64', 9223372036854775808n],
      ['UInt8', 256],
      ['UInt64', -1],
      ['Int64', 1.5],
      ['Int64', Number.MAX_SAFE_INTEGER + 2],
      ['Int64', '1e3'],
      ['Int64', '007'],
      ['Int64', ' 1'],
      ['Int64', true],
      ['Float64', Number.NaN],
      ['Float64', Infinity],
      ['Float64', 1e21],
      ['Float64', '1.5'],
      ['String', 5],
      ['String', null],
      ['String', ['a']],
      ['Bool', 1],
      ['UUID', 'not-a-uuid'],
      ['UUID', "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' OR 1=1"],
      ["DateTime64(6, 'UTC')", '2026-01-02T03:04:05Z'],
      ["DateTime64(6, 'UTC')", '2026-01-02 03:04:05.1234567'],
      ["DateTime64(6, 'UTC')", new Date(Number.NaN)],
      ['DateTime', '2026-01-02 03:04:05.5'],
      ['Date', '2026-1-2'],
      ['Array(Int64)', 'not an array'],
      ['Array(Int64)', [1, 'x']],
      ['Array(String)', ['a', null]],
      ['Map(String, String)', { a: 'b' }],
      ['LowCardinality(String)', 'a'],
      ['Identifier', 'events'],
      ['Nullable(Array(String))', null],
      ['Decimal(10, 2)', 1.5],
    ];
    for (const [type, value] of bound) expect(inlineParams(`SELECT {v:${type}}`, { v: value }), `${type} ${String(value)}`).toBeUndefined();
    // Not given, or the statement cannot be read to its end.
    expect(inlineParams('SELECT {v:Int64}', {})).toBeUndefined();
    expect(inlineParams("SELECT 'open {v:Int64}", { v: 1 })).toBeUndefined();
    expect(inlineParams('SELECT {v:Int64}, /* open', { v: 1 })).toBeUndefined();
    expect(inlineParams('SELECT {v:Int64', { v: 1 })).toBeUndefined();
  });

  it('writes Dates as chdb binds them (UTC, to the second) and dates as given', () => {
    expect(
      inlineParams('SELECT {t:DateTime}, {d:Date}, {e:Date32}', {
        t: new Date('2026-01-02T03:04:05.678Z'),
        d: '2026-01-02',
        e: '1950-01-01',
      }),
    ).toBe("SELECT _CAST('2026-01-02 03:04:05', 'DateTime'), _CAST('2026-01-02', 'Date'), _CAST('1950-01-01', 'Date32')");
  });
});

/** The same statement, bound by chdb and inlined, answers the same (its values and their types). */
describe('inlined against bound, on chdb', () => {
  let dir: string;
  let session: Session;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-inline-'));
    session = new Session(path.join(dir, 'clickhouse'), {
      connectionArgs: Object.entries(SESSION_SETTINGS).map(([name, value]) => `--${name}=${value}`),
    });
    session.query('CREATE TABLE t (id Int64, s String, u UUID) ENGINE = MergeTree ORDER BY id', 'Null');
    session.query(
      `INSERT INTO t VALUES (1, 'a', '${UUID}'), (2, 'it''s', '00000000-0000-0000-0000-000000000002'), (3, '\\\\', '00000000-0000-0000-0000-000000000003')`,
      'Null',
    );
  });
  afterAll(() => {
    session?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const both = (sql: string, params: Record<string, unknown>) => {
    const inlined = inlineParams(sql, params);
    expect(inlined, sql).toBeDefined();
    return { bound: session.queryBind(sql, params, 'JSONEachRow'), inlined: session.query(inlined!, 'JSONEachRow') };
  };
  const same = (type: string, value: unknown) => {
    const { bound, inlined } = both(`SELECT {v:${type}} AS v, toTypeName(v) AS type, hex(toString(v)) AS bytes`, { v: value });
    expect(inlined, `${type} ${JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`).toBe(bound);
    expect(bound).toContain('"type"');
  };

  it('a list longer than a statement may be is bound, and answers', () => {
    const ids = Array.from({ length: 8000 }, (_, i) => `distinct-id-${i}-${'x'.repeat(20)}`);
    const sql = 'SELECT length({ids:Array(String)}) AS n';
    expect(inlineParams(sql, { ids })).toBeUndefined();
    // Written in, the same list is past what ClickHouse parses: why it stays bound.
    expect(() => session.query(`SELECT length([${ids.map((id) => `'${id}'`).join(',')}]) AS n`, 'JSONEachRow')).toThrow(
      /max_query_size|Max query size/i,
    );
    expect(session.queryBind(sql, { ids }, 'JSONEachRow')).toBe('{"n":8000}\n');
  });

  it('strings: quotes, backslashes, NUL, newlines, unicode, braces', () => {
    for (const s of NASTY_STRINGS) {
      same('String', s);
      same('Nullable(String)', s);
      same('Array(String)', [s, 'x', s]);
    }
    same('Nullable(String)', null);
    same('Array(Nullable(String))', ['a', null]);
  });

  it('numbers and bigints, at the ends of their types', () => {
    for (const n of [0, 1, -1, 42, -128, 127, 2 ** 31, -(2 ** 31), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) same('Int64', n);
    for (const n of ['9223372036854775807', '-9223372036854775808', 9223372036854775807n, -9223372036854775808n, '0', '-0'])
      same('Int64', n);
    // What binding refuses is left to it.
    expect(() => session.queryBind('SELECT {v:Int64}', { v: '007' }, 'JSONEachRow')).toThrow(/cannot be parsed/);
    expect(inlineParams('SELECT {v:Int64}', { v: '007' })).toBeUndefined();
    same('UInt64', '18446744073709551615');
    same('Int8', -128);
    same('UInt8', 255);
    same('Int32', -2147483648);
    same('Nullable(Int64)', null);
    same('Nullable(Int64)', 5);
    for (const f of [0, 0.1, -0.5, 1 / 3, 1e-7, 1.5e-300, 5e-324, 123456.789e3, -0, 2 ** 53 - 1, 2 ** 52 + 0.5]) same('Float64', f);
    for (const f of [0, 0.1, -0.5, 1 / 3, 1e-7, 16777217, 3.4e-38, 1e-46]) same('Float32', f);
    same('Array(Int64)', [1, -2, 9223372036854775807n, -9223372036854775808n]);
    same('Array(Int64)', []);
    same('Array(Float64)', [0.1, -3, 1e-7]);
    same('Bool', true);
    same('Bool', false);
  });

  it('instants, dates and UUIDs', () => {
    for (const t of [
      '2026-01-02 03:04:05.123456',
      '2026-01-02 03:04:05',
      '2026-01-02 03:04:05.5',
      '1970-01-01 00:00:00.000000',
      '2299-12-31 23:59:59.999999',
    ]) {
      same("DateTime64(6, 'UTC')", t);
    }
    same("DateTime64(6, 'UTC')", chTime(new Date('2026-03-29T01:30:00.250Z')).value);
    same("DateTime64(3, 'Europe/Paris')", '2026-03-29 02:30:00.250');
    same('DateTime', '2026-01-02 03:04:05');
    same("DateTime('UTC')", new Date('2026-01-02T03:04:05.678Z'));
    same('Date', '2026-01-02');
    same('Date32', '1950-06-07');
    same('UUID', UUID);
    same('UUID', UUID.toUpperCase());
    same('Array(UUID)', [UUID, '00000000-0000-0000-0000-000000000002']);
    same('Array(UUID)', []);
  });

  it('a value never changes the statement: injections find what binding finds', () => {
    const evil = [...NASTY_STRINGS, "a' OR '1'='1", "a') OR 1=1 OR ('", 'a\\', "a\\'", "\\' OR 1=1 OR s=\\'", "1'; SELECT 1; --"];
    for (const value of [...evil, 'a', "it's", '\\']) {
      const { bound, inlined } = both('SELECT count() AS n, groupArray(id) AS ids FROM t WHERE s = {v:String} OR s IN {a:Array(String)}', {
        v: value,
        a: [value, `${value}'`],
      });
      expect(inlined, JSON.stringify(value)).toBe(bound);
    }
    // Only the rows whose text is the value.
    expect(both('SELECT groupArray(id) AS ids FROM t WHERE s = {v:String}', { v: "it's" }).inlined).toBe('{"ids":[2]}\n');
    expect(both('SELECT groupArray(id) AS ids FROM t WHERE s = {v:String}', { v: '\\' }).inlined).toBe('{"ids":[3]}\n');
    expect(both('SELECT groupArray(id) AS ids FROM t WHERE s = {v:String}', { v: "x' OR 1=1 --" }).inlined).toBe('{"ids":[]}\n');
    const uuids = both('SELECT groupArray(id) AS ids FROM t WHERE u IN {a:Array(UUID)}', { a: [UUID] });
    expect(uuids.inlined).toBe(uuids.bound);
    expect(uuids.inlined).toBe('{"ids":[1]}\n');
    expect(session.query('SELECT count() AS n FROM t', 'JSONEachRow')).toBe('{"n":3}\n');
  });

  it('placeholders in literals and comments stay text for ClickHouse too', () => {
    const sql = "SELECT '{v:String}' AS a, {v:String} AS b -- {v:String}\n/* {v:String} */";
    const { bound, inlined } = both(sql, { v: 'x' });
    expect(inlined).toBe(bound);
    expect(inlined).toBe('{"a":"{v:String}","b":"x"}\n');
  });
});
