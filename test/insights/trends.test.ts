/**
 * Reading trends queries, their ranges and buckets (pure), and trends computed by ClickHouse from
 * events sent through /batch/.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readTrendsQuery, TrendsQueryError, type TrendsQuery } from '../../src/insights/trends.js';
import { BREAKDOWN_NULL } from '../../src/insights/trends-results.js';
import { computeTrends } from '../../src/insights/trends-store.js';
import { bucketStart, parseTrendsDate as parseRelativeDate, trendsWindow, type TrendsWindow } from '../../src/insights/trends-window.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const NOW = new Date('2026-11-21T10:30:00Z'); // a Saturday

const query = (source: Record<string, unknown>) =>
  readTrendsQuery({ kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'buy' }], ...source } });

const computed = (q: TrendsQuery, window: TrendsWindow = trendsWindow(q, NOW)) =>
  computeTrends(server.running.ctx.analytics, server.bootstrap.team.id, q, window);

const ev = (timestamp: string, properties: Record<string, unknown> = {}, distinct_id = 'a', event = 'buy') => ({
  event,
  distinct_id,
  properties,
  timestamp,
});

describe('reading a trends query', () => {
  it('takes the viz node or the bare query, with defaults', () => {
    const q = readTrendsQuery({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] });
    expect(q).toMatchObject({ interval: 'day', dateFrom: '-7d', dateTo: null, breakdown: null, properties: [] });
    expect(q.series[0]).toMatchObject({ event: '$pageview', math: 'total', name: '$pageview', mathProperty: null });
  });

  it('keeps math_property for property maths only', () => {
    const q = readTrendsQuery({
      kind: 'TrendsQuery',
      series: [
        { kind: 'EventsNode', event: 'buy', math: 'p90', math_property: 'amount', math_property_type: 'event_properties' },
        { kind: 'EventsNode', event: 'buy', math: 'dau', math_property: 'amount' },
      ],
    });
    expect(q.series.map((s) => [s.math, s.mathProperty])).toEqual([
      ['p90', 'amount'],
      ['dau', null],
    ]);
  });

  it('refuses what it cannot compute, naming the part', () => {
    const attrOf = (input: unknown) => {
      try {
        readTrendsQuery(input);
      } catch (e) {
        return (e as TrendsQueryError).attr;
      }
      return 'accepted';
    };
    expect(attrOf({ kind: 'FunnelsQuery' })).toBe('query__kind');
    expect(attrOf({ kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [] } })).toBe('query__source__series');
    expect(attrOf({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', math: 'unique_group' }] })).toBe('query__series__0__math');
    // A property math without its property would count events under the math's name.
    for (const math of ['sum', 'avg', 'p90']) {
      expect(
        attrOf({
          kind: 'TrendsQuery',
          series: [
            { kind: 'EventsNode', event: 'buy' },
            { kind: 'EventsNode', math },
          ],
        }),
      ).toBe('query__series__1__math_property');
    }
    expect(attrOf({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', math: 'sum', math_property: 7 }] })).toBe(
      'query__series__0__math_property',
    );
    expect(
      attrOf({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', math: 'avg', math_property: 'age', math_property_type: 'person_properties' }],
      }),
    ).toBe('query__series__0__math_property_type');
    expect(attrOf({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', math: 'avg', math_property: '$session_duration' }] })).toBe(
      'query__series__0__math_property',
    );
    expect(attrOf({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode' }], interval: 'minute' })).toBe('query__interval');
    expect(attrOf({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode' }], dateRange: { date_from: 'last tuesday' } })).toBe(
      'query__dateRange__date_from',
    );
    expect(attrOf({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode' }], properties: [{ key: 'x', operator: 'near' }] })).toBe(
      'query__properties__0__operator',
    );
  });
});

describe('date ranges and buckets', () => {
  it('reads PostHog relative dates', () => {
    expect(parseRelativeDate('-7d', NOW)?.toISOString()).toBe('2026-11-14T00:00:00.000Z');
    expect(parseRelativeDate('-24h', NOW)?.toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(parseRelativeDate('-1m', NOW)?.toISOString()).toBe('2026-10-21T00:00:00.000Z');
    expect(parseRelativeDate('mStart', NOW)?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseRelativeDate('2026-11-01', NOW)?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseRelativeDate('soon', NOW)).toBeNull();
  });

  it('cuts -7d by day into eight buckets through today', () => {
    const w = trendsWindow(query({}), NOW);
    expect(w.buckets).toHaveLength(8);
    expect(w.from.toISOString()).toBe('2026-11-14T00:00:00.000Z');
    expect(w.to.toISOString()).toBe('2026-11-22T00:00:00.000Z');
  });

  it('starts weeks on Sunday and months on the first', () => {
    expect(bucketStart(NOW, 'week').toISOString()).toBe('2026-11-15T00:00:00.000Z');
    expect(bucketStart(NOW, 'month').toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(bucketStart(NOW, 'hour').toISOString()).toBe('2026-11-21T10:00:00.000Z');
  });
});

describe('computing trends', () => {
  const events = [
    ev('2026-11-20T09:00:00Z', { plan: 'pro', amount: 10 }, 'a'),
    ev('2026-11-20T11:00:00Z', { plan: 'pro', amount: 30 }, 'a'),
    ev('2026-11-21T08:00:00Z', { plan: 'free', amount: 5 }, 'b'),
    ev('2026-11-21T09:00:00Z', {}, 'c'),
    ev('2026-11-21T09:30:00Z', { plan: 'pro' }, 'c', 'view'),
    ev('2026-11-01T09:00:00Z', { plan: 'pro' }, 'z'), // outside -7d
  ];
  beforeAll(() => server.ingest(events));

  it('counts totals per day with PostHog labels', async () => {
    const q = query({});
    const [r] = await computed(q);
    expect(r!.data).toEqual([0, 0, 0, 0, 0, 0, 2, 2]);
    expect(r!.count).toBe(4);
    expect(r!.days.at(-1)).toBe('2026-11-21');
    expect(r!.labels?.at(-1)).toBe('21-Nov-2026');
    expect(r!.label).toBe('buy');
    expect(r!.action).toMatchObject({ id: 'buy', math: 'total', order: 0 });
  });

  it('counts unique persons with dau', async () => {
    const q = readTrendsQuery({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'buy', math: 'dau' }] });
    const [r] = await computed(q);
    expect(r!.data.slice(-2)).toEqual([1, 2]);
  });

  it('filters on properties, globally and per series', async () => {
    const q = query({ properties: [{ key: 'amount', operator: 'gt', value: 6 }] });
    expect((await computed(q))[0]!.count).toBe(2);
    const perSeries = readTrendsQuery({
      kind: 'TrendsQuery',
      series: [
        { kind: 'EventsNode', event: 'buy', properties: [{ key: 'plan', value: ['free'], operator: 'exact', type: 'event' }] },
        { kind: 'EventsNode', event: null, custom_name: 'Everything' },
      ],
    });
    const [free, all] = await computed(perSeries);
    expect(free!.count).toBe(1);
    expect(all!).toMatchObject({ label: 'Everything', count: 5 });
  });

  it('breaks down by an event property, most frequent first', async () => {
    const q = query({ breakdownFilter: { breakdown: 'plan', breakdown_type: 'event' } });
    const results = await computed(q);
    expect(results.map((r) => [r.breakdown_value, r.count])).toEqual([
      ['pro', 2],
      [BREAKDOWN_NULL, 1],
      ['free', 1],
    ]);
    expect(results[0]!.label).toBe('buy - pro');
  });

  it('buckets by hour over -24h', async () => {
    const q = query({ interval: 'hour', dateRange: { date_from: '-24h' } });
    const w = trendsWindow(q, NOW);
    expect(w.buckets).toHaveLength(25);
    const [r] = await computed(q, w);
    expect(r!.days.at(-1)).toBe('2026-11-21 10:00:00');
    expect(r!.count).toBe(3); // 2026-11-20T09:00 is before the window
  });
});

describe('property operators', () => {
  const props = { name: 'Ada Lovelace', n: 5, flag: true, long: `${'a'.repeat(5000)}!` };
  // Before the other tests' range, which counts all events.
  beforeAll(() => server.ingest([ev('2026-10-20T12:00:00Z', props, 'p', 'props probe')]));
  it.each([
    [{ key: 'name', value: 'Ada Lovelace' }, true],
    [{ key: 'name', operator: 'is_not', value: 'Bob' }, true],
    [{ key: 'name', operator: 'icontains', value: 'love' }, true],
    [{ key: 'name', operator: 'not_icontains', value: 'love' }, false],
    [{ key: 'name', operator: 'regex', value: '^Ada' }, true],
    // ClickHouse's match is RE2: linear time, no look-around (an invalid pattern matches nothing).
    [{ key: 'long', operator: 'regex', value: '(a+)+$' }, false],
    [{ key: 'long', operator: 'not_regex', value: '(a+)+$' }, true],
    [{ key: 'name', operator: 'regex', value: 'Ada(?= Love)' }, false],
    [{ key: 'name', operator: 'not_regex', value: 'Ada(?= Love)' }, true],
    [{ key: 'missing', operator: 'is_not_set' }, true],
    // Without a value, PostHog compares with None.
    [{ key: 'missing', operator: 'exact' }, true],
    [{ key: 'name', operator: 'icontains' }, false],
    [{ key: 'flag', value: 'true' }, true],
    [{ key: 'n', operator: 'gte', value: '5' }, true],
    [{ key: 'n', operator: 'lt', value: 5 }, false],
  ])('%j → %s', async (filter, expected) => {
    const q = readTrendsQuery({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'props probe', properties: [filter] }],
      dateRange: { date_from: '2026-10-20', date_to: '2026-10-20' },
    });
    expect((await computed(q))[0]!.count).toBe(expected ? 1 : 0);
  });
});
