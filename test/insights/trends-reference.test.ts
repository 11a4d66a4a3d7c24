/**
 * Trends computed by ClickHouse agree with a reference count in memory (how Hoglet counted them
 * before they moved to ClickHouse, below), for property values of every JSON type, odd keys, a
 * breakdown with more values than shown, persons merged into others, and each math.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventRow } from '../../src/events/outbox-rows.js';
import { readTrendsQuery, type TrendsQuery } from '../../src/insights/trends.js';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type TrendsResult } from '../../src/insights/trends-results.js';
import { computeTrends } from '../../src/insights/trends-store.js';
import { bucketIndex, trendsWindow, type TrendsWindow } from '../../src/insights/trends-window.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const NOW = new Date('2025-11-21T12:00:00Z');
const DAY = 86_400_000;

interface Event {
  event: string;
  distinctId: string;
  /** The person it counts for now (after the overrides). */
  person: string;
  properties: Record<string, unknown>;
  timestamp: string;
}
const events: Event[] = [];

function plan(n: number): unknown {
  // Strings, numbers, booleans, null, objects, arrays, a missing key, an empty string.
  const values = ['pro', 'free', 7, 2.5, true, false, null, { tier: 'gold' }, ['a', 1], undefined, '', 'Été ünïcode'];
  return values[n % values.length];
}

beforeAll(async () => {
  const teamId = server.bootstrap.team.id;
  const persons = new Map<string, string>();
  const personOf = (label: string) => persons.get(label) ?? persons.set(label, randomUUID()).get(label)!;
  // person-3 was merged into person-4, and person-4 then into person-5: both count as person-5.
  const merged = new Map([
    [personOf('person-3'), personOf('person-5')],
    [personOf('person-4'), personOf('person-5')],
  ]);
  const lines: string[] = [];
  for (let n = 0; n < 160; n++) {
    // Ten a day from the 8th (before -7d: the active users' trailing days), then ten every 13 hours
    // from the 14th; some with microseconds.
    const group =
      n < 40 ? Date.parse('2025-11-08T00:00:00Z') + (n / 10) * DAY : Date.parse('2025-11-14T00:00:00Z') + ((n - 40) / 10) * 13 * 3_600_000;
    const base = Math.floor(group / 3_600_000) * 3_600_000 + (n % 10) * 17;
    const timestamp = new Date(base).toISOString().replace('Z', n % 10 === 9 ? '321Z' : 'Z');
    const properties: Record<string, unknown> = Object.assign(Object.create(null), { n, 'odd "key".x': n % 3 === 0 ? 'quoted' : null });
    const value = plan(n);
    if (value !== undefined) properties.plan = value;
    if (n % 4 === 0) properties.amount = n;
    if (n % 7 === 0) properties.amount = `${n / 7}`; // a number as text counts as one
    if (n % 11 === 0) properties.amount = 'n/a';
    if (n % 3 === 1)
      Object.defineProperty(properties, '__proto__', { value: `proto-${n % 2}`, enumerable: true, writable: true, configurable: true });
    if (n % 4 !== 1) properties.$session_id = `s-${n % 9}`;
    const event = n % 5 === 0 ? 'view' : 'buy';
    const distinctId = `user-${n % 17}`;
    // Personless events carry a person of their own distinct id.
    const stored = n % 6 === 0 ? personOf(distinctId) : personOf(`person-${n % 13}`);
    events.push({ event, distinctId, person: merged.get(stored) ?? stored, properties, timestamp });
    const json = JSON.stringify(properties);
    lines.push(eventRow(teamId, randomUUID(), event, distinctId, stored, json, timestamp, timestamp, textOf(properties.$session_id), null));
  }
  await server.running.ctx.analytics.insert('events', lines.join('\n'));
  const overrides = [...merged].map(([old, now], version) =>
    JSON.stringify({ team_id: teamId, old_person_id: old, override_person_id: now, version }),
  );
  await server.running.ctx.analytics.insert('person_overrides', overrides.join('\n'));
});

function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The old in-memory filter semantics (on these values the same as HogQL's). */
function matches(properties: Record<string, unknown>, filter: { key: string; value?: unknown; operator?: string }): boolean {
  const text = textOf(properties[filter.key]);
  const wanted = String(filter.value);
  switch (filter.operator ?? 'exact') {
    case 'exact':
      return text === wanted;
    case 'icontains':
      return text !== null && text.toLowerCase().includes(wanted.toLowerCase());
    case 'is_set':
      return text !== null;
    case 'gt':
      return text !== null && Number(text) > Number(wanted);
    default:
      throw new Error(`no reference for ${filter.operator}`);
  }
}

function aggregate(math: string, bucket: Event[], property: string | null): number {
  if (math === 'total' || (property === null && math !== 'dau' && math !== 'unique_session')) return bucket.length;
  if (math === 'dau') return new Set(bucket.map((e) => e.person)).size;
  if (math === 'unique_session') return new Set(bucket.map((e) => textOf(e.properties.$session_id)).filter((s) => s)).size;
  const numbers = bucket
    .map((e) => textOf(e.properties[property!]))
    .filter((t) => t !== null && /^\s*-?\d+(\.\d+)?\s*$/.test(t))
    .map(Number)
    .sort((a, b) => a - b);
  if (numbers.length === 0) return 0;
  const quantile = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 }[math];
  if (quantile !== undefined) {
    const at = quantile * (numbers.length - 1);
    const low = Math.floor(at);
    return numbers[low]! + (numbers[Math.min(low + 1, numbers.length - 1)]! - numbers[low]!) * (at - low);
  }
  const total = numbers.reduce((a, b) => a + b, 0);
  return { sum: total, avg: total / numbers.length, min: numbers[0]!, max: numbers.at(-1)! }[math as 'sum']!;
}

/** The reference: every series (per breakdown value: most events first, ties by value, then "other"). */
function reference(query: TrendsQuery, window: TrendsWindow): Array<[string | undefined, number[]]> {
  const out: Array<[string | undefined, number[]]> = [];
  const inWindow = (e: Event) => Date.parse(e.timestamp) >= window.from.getTime() && Date.parse(e.timestamp) < window.to.getTime();
  for (const series of query.series) {
    const matching = events.filter(
      (e) =>
        (series.event === null || e.event === series.event) &&
        [...query.properties, ...series.properties].every((f) => matches(e.properties, f)),
    );
    const valueOf = (e: Event) => (query.breakdown === null ? '' : textOf(e.properties[query.breakdown]) || BREAKDOWN_NULL);
    const counts = new Map<string, number>();
    for (const e of matching.filter(inWindow)) counts.set(valueOf(e), (counts.get(valueOf(e)) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
    const shown = ranked.slice(0, query.breakdownLimit);
    const shownOf = (e: Event) => (shown.includes(valueOf(e)) ? valueOf(e) : BREAKDOWN_OTHER);
    const values = ranked.length > query.breakdownLimit ? [...shown, BREAKDOWN_OTHER] : shown;
    for (const value of query.breakdown === null ? [''] : values) {
      const own = matching.filter((e) => shownOf(e) === value || query.breakdown === null);
      const data = window.buckets.map((start, i) => {
        if (series.math === 'weekly_active' || series.math === 'monthly_active') {
          // PostHog's trailing window of a bucket starting at d: (d - (days - 1) days, d + 1 day].
          const days = series.math === 'weekly_active' ? 7 : 30;
          const t = (e: Event) => Date.parse(e.timestamp);
          const active = own.filter(
            (e) => t(e) > start.getTime() - (days - 1) * DAY && t(e) <= start.getTime() + DAY && t(e) < window.to.getTime(),
          );
          return aggregate('dau', active, null);
        }
        return aggregate(
          series.math,
          own.filter(inWindow).filter((e) => bucketIndex(window, Date.parse(e.timestamp)) === i),
          series.mathProperty,
        );
      });
      out.push([query.breakdown === null ? undefined : value, data]);
    }
  }
  return out;
}

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
  ['breakdown by a property of every JSON type', { series: [{ kind: 'EventsNode', event: null }], breakdownFilter: { breakdown: 'plan' } }],
  [
    'dau breakdown with more values than shown (the rest as "other")',
    { series: [{ kind: 'EventsNode', event: null, math: 'dau' }], breakdownFilter: { breakdown: 'n', breakdown_type: 'event' } },
  ],
  [
    'breakdown limited to 3 values (the rest as "other")',
    { series: [{ kind: 'EventsNode', event: null }], breakdownFilter: { breakdown: 'n', breakdown_limit: 3 } },
  ],
  ['breakdown by a key named __proto__', { series: [{ kind: 'EventsNode', event: null }], breakdownFilter: { breakdown: '__proto__' } }],
  [
    'filters on text operators',
    { series: [{ kind: 'EventsNode', event: null }], properties: [{ key: 'plan', operator: 'icontains', value: 'R' }] },
  ],
  ['unique sessions', { series: [{ kind: 'EventsNode', event: 'buy', math: 'unique_session' }], breakdownFilter: { breakdown: 'plan' } }],
  ...['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'].map((math): [string, Record<string, unknown>] => [
    `${math} of a property`,
    { series: [{ kind: 'EventsNode', event: null, math, math_property: 'amount' }], dateRange: { date_from: '-10d' } },
  ]),
  [
    'weekly and monthly active users, broken down',
    {
      series: [
        { kind: 'EventsNode', event: 'buy', math: 'weekly_active' },
        { kind: 'EventsNode', event: null, math: 'monthly_active' },
      ],
      breakdownFilter: { breakdown: '__proto__' },
    },
  ],
];

describe('trends computed by ClickHouse', () => {
  it.each(QUERIES)('agree with the reference: %s', async (_, source) => {
    const query = readTrendsQuery({ kind: 'TrendsQuery', dateRange: { date_from: '-7d' }, ...source });
    const window = trendsWindow(query, NOW);
    const results: TrendsResult[] = await computeTrends(server.running.ctx.analytics, server.bootstrap.team.id, query, window);
    const expected = reference(query, window);
    expect(expected.some(([, data]) => data.some((v) => v > 0))).toBe(true);
    expect(results.map((r) => [r.breakdown_value, r.data.map((v) => Number(v.toPrecision(12)))])).toEqual(
      expected.map(([value, data]) => [value, data.map((v) => Number(v.toPrecision(12)))]),
    );
    for (const r of results)
      expect(r.count).toBeCloseTo(
        r.data.reduce((a, b) => a + b, 0),
        9,
      );
  });
});
