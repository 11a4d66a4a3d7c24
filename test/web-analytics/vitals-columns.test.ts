/**
 * The web vitals columns of `events` (src/events/analytics-tables.ts VITALS_COLUMNS) hold what
 * propertyNumber reads from the JSON, on `$web_vitals` events only; a table made before them gets
 * them at the next start, its old rows read the same. Embedded ClickHouse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureAnalyticsSchema } from '../../src/events/analytics-tables.js';
import { VITALS_COLUMNS } from '../../src/events/analytics-columns.js';
import { propertyNumber } from '../../src/events/sessions-table.js';
import { EmbeddedEngine } from '../../src/platform/analytics/embedded-engine.js';

let dir: string;
let engine: EmbeddedEngine;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-vitals-columns-'));
  engine = await EmbeddedEngine.open({ path: path.join(dir, 'clickhouse'), maxMemoryBytes: 512 * 1024 * 1024, maxThreads: 1 });
});

afterAll(async () => {
  await engine?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** [event, LCP value as sent] → the LCP column expected (numbers and numeric text; not booleans, text or infinities). */
const CASES: Array<[string, unknown, number | null]> = [
  ['$web_vitals', 1234.5, 1234.5],
  ['$web_vitals', '2500', 2500],
  ['$web_vitals', true, null],
  ['$web_vitals', 'slow', null],
  ['$web_vitals', null, null],
  ['$web_vitals', undefined, null],
  ['$pageview', 1234.5, null],
];

it('holds the vitals as numbers on $web_vitals events, in tables made before the columns too', async () => {
  await ensureAnalyticsSchema(engine);
  // A table as an older version made it: without the columns, rows stored then.
  for (const column of Object.values(VITALS_COLUMNS)) await engine.command(`ALTER TABLE ${engine.table('events')} DROP COLUMN ${column}`);
  const row = (n: number, event: string, lcp: unknown, id = n) =>
    JSON.stringify({
      team_id: 1,
      uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
      event,
      distinct_id: 'd',
      person_id: '00000000-0000-4000-8000-000000000000',
      properties: JSON.stringify({ $web_vitals_LCP_value: lcp, $web_vitals_INP_value: 120, n }),
      timestamp: '2026-01-01 00:00:00',
      created_at: '2026-01-01 00:00:00',
      session_id: 's',
      elements_chain: '',
    });
  await engine.insert('events', CASES.map(([event, lcp], n) => row(n, event, lcp)).join('\n'));
  await ensureAnalyticsSchema(engine);
  await engine.insert('events', CASES.map(([event, lcp], n) => row(n, event, lcp, n + 100)).join('\n'));
  const rows = await engine.query<{ n: number; lcp: number | null; inp: number | null; cls: number | null; direct: number | null }>(
    `SELECT JSONExtractInt(properties, 'n') AS n, ${VITALS_COLUMNS.LCP} AS lcp, ${VITALS_COLUMNS.INP} AS inp, ${VITALS_COLUMNS.CLS} AS cls,
       if(event = '$web_vitals', ${propertyNumber('$web_vitals_LCP_value')}, NULL) AS direct
     FROM ${engine.table('events')} ORDER BY uuid`,
  );
  expect(rows).toHaveLength(CASES.length * 2);
  for (const r of rows) {
    const [event, , lcp] = CASES[r.n]!;
    expect({ n: r.n, lcp: r.lcp, direct: r.direct }).toEqual({ n: r.n, lcp, direct: lcp });
    expect(r.inp).toBe(event === '$web_vitals' ? 120 : null);
    expect(r.cls).toBeNull();
  }
});
