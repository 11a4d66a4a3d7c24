/**
 * Trends read from storage a page at a time, with only the properties a query looks at, give the
 * same result as counting the events whole in memory (the pure core's semantics), on both
 * backends: through page boundaries inside a run of equal timestamps (the cursor's uuid
 * tie-break), microsecond timestamps (PostgreSQL), and property values of every JSON type.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '../../src/platform/db/values.js';
import { forEachEventPage } from '../../src/events/event-pages.js';
import { forEachTrendsEvent } from '../../src/insights/store.js';
import { computeTrends, readTrendsQuery, TrendsCounter, type TrendsEvent } from '../../src/insights/trends.js';
import { trendsWindow } from '../../src/insights/trends-window.js';
import { BACKEND } from '../helpers/backend.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const NOW = new Date('2025-11-21T12:00:00Z');

/** The events as stored, and what the in-memory core is given for them. */
const events: TrendsEvent[] = [];
/** Their uuids and timestamps as stored, in the same order. */
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
    events.push({ event, distinctId, personId, properties, timestamp });
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

const QUERIES: Array<[string, Record<string, unknown>]> = [
  ['total per day', { series: [{ kind: 'EventsNode', event: 'buy' }] }],
  [
    'dau per hour, all events',
    { series: [{ kind: 'EventsNode', event: null, math: 'dau' }], interval: 'hour', dateRange: { date_from: '-4d' } },
  ],
  [
    'two series with filters',
    {
      series: [
        { kind: 'EventsNode', event: 'buy', properties: [{ key: 'amount', operator: 'gt', value: 40 }] },
        { kind: 'EventsNode', event: 'view', properties: [{ key: 'odd "key".x', operator: 'exact', value: 'quoted' }] },
      ],
      properties: [{ key: 'plan', operator: 'is_set' }],
    },
  ],
  [
    'breakdown by a property of every JSON type',
    { series: [{ kind: 'EventsNode', event: null }], breakdownFilter: { breakdown: 'plan', breakdown_type: 'event' } },
  ],
  [
    'dau breakdown with more values than shown (the rest as "other")',
    {
      series: [{ kind: 'EventsNode', event: null, math: 'dau' }],
      breakdownFilter: { breakdown: 'n', breakdown_type: 'event' },
    },
  ],
  [
    'breakdown by a key named __proto__',
    { series: [{ kind: 'EventsNode', event: null }], breakdownFilter: { breakdown: '__proto__', breakdown_type: 'event' } },
  ],
  [
    'filters on text operators',
    { series: [{ kind: 'EventsNode', event: null }], properties: [{ key: 'plan', operator: 'icontains', value: 'R' }] },
  ],
];

describe('trends read in pages', () => {
  it.each(QUERIES)('count as the events whole would: %s', async (_, source) => {
    const query = readTrendsQuery({ kind: 'TrendsQuery', dateRange: { date_from: '-7d' }, ...source });
    const window = trendsWindow(query, NOW);
    const expected = computeTrends(query, events, window);
    expect(expected.some((r) => r.count > 0)).toBe(true);
    const names = query.series.some((s) => s.event === null) ? null : query.series.map((s) => s.event);
    const inRange = events.filter((e) => {
      const t = Date.parse(e.timestamp);
      return t >= window.from.getTime() && t < window.to.getTime() && (names === null || names.includes(e.event));
    });
    for (const pageSize of [7, 10_000]) {
      const counter = new TrendsCounter(query, window);
      let read = 0;
      await forEachTrendsEvent(
        server.running.ctx.database,
        server.bootstrap.team.id,
        query,
        window,
        (event) => {
          read++;
          counter.add(event);
        },
        pageSize,
      );
      expect(counter.results(), `page size ${pageSize}`).toEqual(expected);
      // Every stored event of the range once: none skipped or read twice at a page boundary.
      expect(read, `page size ${pageSize}`).toBe(inRange.length);
    }
  });
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
