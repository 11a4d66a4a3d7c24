/**
 * Events read from the SQL events table a page at a time (events/event-pages.ts), on both
 * backends: through page boundaries inside a run of equal timestamps (the cursor's uuid
 * tie-break) and microsecond timestamps (PostgreSQL). Trends no longer read them: ClickHouse
 * computes them (trends-reference.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '../../src/platform/db/values.js';
import { forEachEventPage } from '../../src/events/event-pages.js';
import { BACKEND } from '../helpers/backend.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

/** The events' uuids and timestamps as stored, in the same order. */
const keys: Array<{ uuid: string; timestamp: string }> = [];

function plan(n: number): unknown {
  // Strings, numbers, booleans, null, objects, arrays, a missing key, an empty string.
  const values = ['pro', 'free', 7, 2.5, true, false, null, { tier: 'gold' }, ['a', 1], undefined, '', 'Été ünïcode'];
  return values[n % values.length];
}

beforeAll(async () => {
  const rows: Array<Record<string, unknown>> = [];
  for (let n = 0; n < 120; n++) {
    // Runs of equal timestamps (ten per hour) so that pages of 7 end inside them.
    const base = Date.parse('2025-11-18T00:00:00Z') + Math.floor(n / 10) * 3_600_000;
    let timestamp = new Date(base).toISOString();
    // PostgreSQL stores microseconds; the cursor must not lose them (SQLite keeps the worker's text).
    if (BACKEND === 'postgres' && n % 10 >= 8) timestamp = timestamp.replace('.000Z', `.000${n % 10}5${n % 10}Z`);
    // Null-prototype bags, as the read gives: a missing `__proto__` key is missing, not Object.prototype.
    const properties: Record<string, unknown> = Object.assign(Object.create(null), { n, 'odd "key".x': n % 3 === 0 ? 'quoted' : null });
    const value = plan(n);
    if (value !== undefined) properties.plan = value;
    if (n % 4 === 0) properties.amount = n;
    // A key like any other in the stored JSON (an own property, not the prototype).
    if (n % 3 === 1)
      Object.defineProperty(properties, '__proto__', { value: `proto-${n % 2}`, enumerable: true, writable: true, configurable: true });
    const event = n % 5 === 0 ? 'view' : 'buy';
    const personId = n % 6 === 0 ? null : `person-${n % 13}`;
    const distinctId = `user-${n % 17}`;
    const uuid = randomUUID();
    keys.push({ uuid, timestamp });
    rows.push({
      team_id: server.bootstrap.team.id,
      uuid,
      event,
      distinct_id: distinctId,
      person_id: personId,
      properties: toJson(properties),
      timestamp,
      created_at: timestamp,
      session_id: null,
      elements_chain: null,
    });
  }
  await server.running.ctx.database.db
    .insertInto('events')
    .values(rows as never)
    .execute();
});

describe('event pages', () => {
  // Microsecond text sorts as its instant here: every fraction has six digits or none.
  const instant = (t: string) => t.replace(/\.(\d{3})Z$/, '.$1000Z');
  const ordered = () =>
    [...keys].sort((a, b) =>
      instant(a.timestamp) < instant(b.timestamp)
        ? -1
        : instant(a.timestamp) > instant(b.timestamp)
          ? 1
          : a.uuid < b.uuid
            ? -1
            : a.uuid > b.uuid
              ? 1
              : 0,
    );
  const select = () => server.running.ctx.database.db.selectFrom('events').select('uuid').where('team_id', '=', server.bootstrap.team.id);

  it.each([
    ['oldest first', false],
    ['newest first', true],
  ])('read every event once, %s, across runs of equal timestamps', async (_, newestFirst) => {
    const read: string[] = [];
    await forEachEventPage<{ uuid: string }>(server.running.ctx.database, select, { newestFirst, pageSize: 7 }, (rows) => {
      read.push(...rows.map((r) => r.uuid));
    });
    const expected = ordered().map((k) => k.uuid);
    expect(read).toEqual(newestFirst ? expected.reverse() : expected);
  });

  it('stop after the page that reaches maxRows', async () => {
    const pages: number[] = [];
    await forEachEventPage<{ uuid: string }>(
      server.running.ctx.database,
      select,
      { newestFirst: true, pageSize: 7, maxRows: 20 },
      (rows) => {
        pages.push(rows.length);
      },
    );
    expect(pages).toEqual([7, 7, 7]);
  });
});
