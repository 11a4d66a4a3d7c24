import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEngine } from '../../src/platform/analytics/embedded-engine.js';
import { ch, raw } from '../../src/platform/analytics/sql.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { compileClickHouseCondition } from '../../src/posthog/clickhouse-property-conditions.js';
import { compileCondition, readPropertyCondition } from '../../src/posthog/property-conditions.js';

/**
 * The ClickHouse compiler answers as the SQL one does: every filter below selects the same rows
 * from the same properties on SQLite and on the embedded ClickHouse, read from JSON and from a
 * materialized column alike.
 */
const PROPERTIES: Array<Record<string, unknown>> = [
  { v: 'Chrome' },
  { v: 'chrome mobile' },
  { v: 'Firefox' },
  { v: '' },
  { v: 5 },
  { v: 5.5 },
  { v: '10' },
  { v: -3 },
  { v: true },
  { v: false },
  { v: null },
  {},
  { v: '2026-01-02T10:00' },
  { v: 'a%b_c' },
  { v: 'Ünïcode' },
];

const FILTERS: Array<{ operator?: string; value?: unknown }> = [
  { value: 'Chrome' },
  { operator: 'exact', value: ['Chrome', 'Firefox'] },
  { operator: 'exact', value: [5, null] },
  { operator: 'exact', value: null },
  { operator: 'exact', value: true },
  { operator: 'exact', value: 5 },
  { operator: 'is_not', value: 'Chrome' },
  { operator: 'is_not', value: ['Chrome', 'Firefox'] },
  { operator: 'is_not', value: null },
  { operator: 'is_set' },
  { operator: 'is_not_set' },
  { operator: 'icontains', value: 'chrome' },
  { operator: 'icontains', value: ['fire', 'mobile'] },
  { operator: 'icontains', value: '%' },
  { operator: 'not_icontains', value: 'chrome' },
  { operator: 'not_icontains', value: ['fire', 'mobile'] },
  { operator: 'regex', value: '^[Cc]hr' },
  { operator: 'regex', value: '\\d' },
  { operator: 'not_regex', value: '^[Cc]hr' },
  { operator: 'gt', value: 5 },
  { operator: 'gte', value: '5' },
  { operator: 'lt', value: 0 },
  { operator: 'lte', value: 10 },
  { operator: 'gt', value: '2026-01-01' },
  { operator: 'lt', value: '1e400' },
  { operator: 'gt', value: '1e400' },
  { operator: 'gte', value: '-1e400' },
  { operator: 'between', value: [0, 6] },
  { operator: 'not_between', value: [0, 6] },
  { operator: 'in', value: ['Chrome', '10'] },
  { operator: 'not_in', value: ['Chrome', '10'] },
  { operator: 'not_in', value: ['Chrome', null] },
  { operator: 'min', value: 5 },
  { operator: 'max', value: 5 },
  { operator: 'is_date_before', value: '2026-02-01' },
];

let dir: string;
let database: Database;
let engine: EmbeddedEngine;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-conditions-'));
  database = await openDatabase({ sqliteFile: path.join(dir, 'conditions.db') });
  await sql`create table props (id integer primary key, properties text not null)`.execute(database.db);
  engine = await EmbeddedEngine.open({ path: path.join(dir, 'clickhouse'), maxMemoryBytes: 512 * 1024 * 1024, maxThreads: 1 });
  await engine.command(
    `CREATE TABLE ${engine.table('props')} (id Int64, properties String, mat_v Nullable(String) MATERIALIZED JSONExtract(properties, 'v', 'Nullable(String)')) ENGINE = MergeTree ORDER BY id`,
  );
  const lines: string[] = [];
  for (const [id, properties] of PROPERTIES.entries()) {
    await sql`insert into props (id, properties) values (${id}, ${JSON.stringify(properties)})`.execute(database.db);
    lines.push(JSON.stringify({ id, properties: JSON.stringify(properties) }));
  }
  await engine.insert('props', lines.join('\n'));
});

afterAll(async () => {
  await engine?.close();
  await database?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['from the JSON', () => undefined],
  ['from a materialized column', () => 'mat_v'],
])('ClickHouse property conditions, %s', (_, columnOf) => {
  it.each(FILTERS.map((f) => [JSON.stringify(f), f] as const))('%s selects what SQLite selects', async (_name, filter) => {
    const condition = readPropertyCondition({ key: 'v', ...filter }, 'the test');
    const onSqlite = compileCondition('sqlite', condition, 'properties');
    const expected = (
      await sql<{ id: number }>`select id from props where ${onSqlite ?? sql`1 = 1`} order by id`.execute(database.db)
    ).rows.map((r) => Number(r.id));
    const onClickHouse = compileClickHouseCondition(condition, {
      column: 'properties',
      columnOf: (key) => (key === 'v' ? columnOf() : undefined),
    });
    const { sql: text, params } = ch`SELECT id FROM ${raw(engine.table('props'))} WHERE ${onClickHouse ?? raw('1')} ORDER BY id`.compile();
    const actual = (await engine.query<{ id: number }>(text, params)).map((r) => r.id);
    expect(actual).toEqual(expected);
  });
});

describe('regular expressions ClickHouse refuses', () => {
  it('refuses, as a filter error, a pattern that ClickHouse would refuse with the whole query', async () => {
    const pattern = '^caf\\u00e9$';
    await expect(engine.query(`SELECT match('café', {p:String}) AS m`, { p: pattern })).rejects.toThrow(/re2|escape/i);
    expect(() => readPropertyCondition({ key: 'v', operator: 'regex', value: pattern }, 'the test')).toThrow(/Invalid regular expression/);
    // Written as RE2 writes a code point, it is a pattern both accept.
    const condition = readPropertyCondition({ key: 'v', operator: 'regex', value: '^caf\\x{e9}$' }, 'the test');
    expect(condition.operator).toBe('regex');
  });
});
