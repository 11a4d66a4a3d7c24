/**
 * The web analytics query kinds through `POST …/query/` against a fixture worked out by hand
 * (fixture.ts): overview tiles with their previous period, breakdown tables, web vitals per path,
 * filters, the environment's time zone, confinement and bad queries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { DATE_RANGE, webFixture, ZONE } from './fixture.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;
let other: { id: number; token: string };

async function query(body: Record<string, unknown>, base = env()) {
  const res = await server.request(`${base}/query/`, { method: 'POST', body: { query: { dateRange: DATE_RANGE, ...body } } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const tiles = (body: any) => Object.fromEntries(body.results.map((r: any) => [r.key, r]));
const table = (body: any) => body.results.map((r: any) => [r[0], r[1][0], r[2][0]]);

beforeAll(async () => {
  const zone = await server.request(`${env()}/`, { method: 'PATCH', body: { timezone: ZONE } });
  expect(zone.status).toBe(200);
  await server.ingest(webFixture());
  const created = await server.request(`/api/projects/${server.bootstrap.team.id}/environments/`, {
    method: 'POST',
    body: { name: 'Other' },
  });
  expect(created.status, created.text).toBe(201);
  other = { id: created.body.id, token: created.body.api_token };
  const theirs = await server.request(`/api/environments/${other.id}/`, { method: 'PATCH', body: { timezone: ZONE } });
  expect(theirs.status).toBe(200);
  // The other environment: the same fixture twice over (other people and sessions).
  const batch = [...webFixture('x-'), ...webFixture('y-')];
  const res = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: other.token, batch } });
  expect(res.status).toBe(200);
  await server.settle();
});

describe('WebOverviewQuery', () => {
  it('counts visitors, views, sessions, duration and bounce rate, with the previous period', async () => {
    const body = await query({ kind: 'WebOverviewQuery', properties: [] });
    expect(body.results.map((r: any) => r.key)).toEqual(['visitors', 'views', 'sessions', 'session duration', 'bounce rate']);
    const t = tiles(body);
    expect(t.visitors).toEqual({ key: 'visitors', kind: 'unit', value: 2, previous: 2, changeFromPreviousPct: 0 });
    expect(t.views).toMatchObject({ value: 4, previous: 3, changeFromPreviousPct: 33 });
    expect(t.sessions).toMatchObject({ value: 3, previous: 2, changeFromPreviousPct: 50 });
    expect(t['session duration'].kind).toBe('duration_s');
    expect(t['session duration'].value).toBeCloseTo(50 / 3, 6);
    expect(t['session duration']).toMatchObject({ previous: 30, changeFromPreviousPct: -44 });
    expect(t['bounce rate']).toMatchObject({ kind: 'percentage', previous: 50, changeFromPreviousPct: -33, isIncreaseBad: true });
    expect(t['bounce rate'].value).toBeCloseTo(100 / 3, 6);
    expect(body.timezone).toBe(ZONE);
    expect(body.dateFrom).toBe('2025-11-09T23:00:00.000Z');
    expect(body.dateTo).toBe('2025-11-16T23:00:00.000Z');
  });

  it('leaves the previous period out when not compared', async () => {
    const t = tiles(await query({ kind: 'WebOverviewQuery', compareFilter: { compare: false } }));
    expect(t.views).toMatchObject({ value: 4, previous: null, changeFromPreviousPct: null });
  });

  it('reads all time from the first event on, however long ago', async () => {
    const pageviews = webFixture().filter((e: any) => e.event === '$pageview').length;
    const t = tiles(
      await query({ kind: 'WebOverviewQuery', dateRange: { date_from: 'all', date_to: null }, compareFilter: { compare: false } }),
    );
    expect(t.views.value).toBe(pageviews);
    expect(pageviews).toBeGreaterThan(4);
  });

  it('starts all time on the local day of the first event, compared with as long a period before it', async () => {
    // The first event is s6's, 1 Nov 2025 10:00 UTC: all time starts on 1 Nov local (31 Oct 23:00 UTC).
    const all = await query({ kind: 'WebOverviewQuery', dateRange: { date_from: 'all', date_to: '2025-11-16' } });
    expect([all.dateFrom, all.dateTo]).toEqual(['2025-10-31T23:00:00.000Z', '2025-11-16T23:00:00.000Z']);
    // The same answer as those days asked by date, previous period (16–31 Oct, before any event) included.
    const days = await query({ kind: 'WebOverviewQuery', dateRange: { date_from: '2025-11-01', date_to: '2025-11-16' } });
    expect(tiles(all)).toEqual(tiles(days));
    expect(tiles(all).views).toMatchObject({ value: 8, previous: 0, changeFromPreviousPct: null });
    const pages = await query({ kind: 'WebStatsTableQuery', breakdownBy: 'Page', dateRange: { date_from: 'all', date_to: '2025-11-16' } });
    expect(pages.dateFrom).toBe('2025-10-31T23:00:00.000Z');
    expect(pages.results).toContainEqual(['/old', [1, 0], [1, 0]]);
  });

  it('reads all time as today in an environment without events', async () => {
    const created = await server.request(`/api/projects/${server.bootstrap.team.id}/environments/`, {
      method: 'POST',
      body: { name: 'Empty' },
    });
    expect(created.status, created.text).toBe(201);
    const body = await query(
      { kind: 'WebOverviewQuery', dateRange: { date_from: 'all', date_to: null } },
      `/api/environments/${created.body.id}`,
    );
    // One day in UTC (the new environment's zone), the one holding now.
    const [from, to] = [Date.parse(body.dateFrom), Date.parse(body.dateTo)];
    expect(to - from).toBe(86_400_000);
    expect(Date.now()).toBeGreaterThanOrEqual(from);
    expect(tiles(body).views).toMatchObject({ value: 0, previous: 0 });
  });

  it('applies path, country and device filters', async () => {
    const mobile = tiles(await query({ kind: 'WebOverviewQuery', properties: [{ key: '$device_type', value: 'Mobile', type: 'event' }] }));
    expect([mobile.visitors.value, mobile.views.value, mobile.sessions.value, mobile['bounce rate'].value]).toEqual([1, 1, 1, 100]);
    expect([mobile.visitors.previous, mobile.views.previous]).toEqual([1, 2]); // s5, in DE on Mobile
    const us = tiles(
      await query({
        kind: 'WebOverviewQuery',
        properties: [{ key: '$geoip_country_code', value: ['US'], operator: 'exact', type: 'event' }],
      }),
    );
    expect([us.visitors.value, us.views.value, us.sessions.value, us['session duration'].value]).toEqual([1, 3, 2, 25]);
    const pricing = tiles(await query({ kind: 'WebOverviewQuery', properties: [{ key: '$pathname', value: '/pricing', type: 'event' }] }));
    expect([pricing.visitors.value, pricing.views.value, pricing.sessions.value, pricing['session duration'].value]).toEqual([1, 1, 1, 30]);
  });
});

describe('WebStatsTableQuery', () => {
  it('breaks pages down by visitors and views, with the previous period', async () => {
    const body = await query({ kind: 'WebStatsTableQuery', breakdownBy: 'Page' });
    expect(body.columns).toEqual(['context.columns.breakdown_value', 'context.columns.visitors', 'context.columns.views']);
    expect(body.results).toEqual([
      ['/', [2, 2], [2, 2]],
      ['/blog', [1, 0], [1, 0]],
      ['/pricing', [1, 1], [1, 1]],
    ]);
  });

  it('breaks sessions down by entry page, channel, referrer, country, browser, device and OS', async () => {
    const rows = async (breakdownBy: string) => table(await query({ kind: 'WebStatsTableQuery', breakdownBy }));
    expect(await rows('InitialPage')).toEqual([
      ['/', 2, 3],
      ['/blog', 1, 1],
    ]);
    expect(await rows('InitialChannelType')).toEqual([
      ['Organic Search', 1, 2],
      ['Direct', 1, 1],
      ['Organic Social', 1, 1],
    ]);
    expect(await rows('InitialReferringDomain')).toEqual([
      ['www.google.com', 1, 2],
      ['$direct', 1, 1],
      ['t.co', 1, 1],
    ]);
    expect(await rows('Country')).toEqual([
      ['US', 1, 3],
      ['DE', 1, 1],
    ]);
    expect(await rows('Browser')).toEqual([
      ['Chrome', 1, 3],
      ['Firefox', 1, 1],
    ]);
    expect(await rows('DeviceType')).toEqual([
      ['Desktop', 1, 3],
      ['Mobile', 1, 1],
    ]);
    expect(await rows('OS')).toEqual([
      ['Mac OS X', 1, 3],
      ['iOS', 1, 1],
    ]);
  });

  it('applies the filters to tables', async () => {
    const body = await query({
      kind: 'WebStatsTableQuery',
      breakdownBy: 'Page',
      properties: [{ key: '$device_type', value: 'Desktop', type: 'event' }],
    });
    expect(table(body)).toEqual([
      ['/', 1, 1],
      ['/blog', 1, 1],
      ['/pricing', 1, 1],
    ]);
  });
});

describe('WebVitalsPathBreakdownQuery', () => {
  it('gives each path its percentile, banded by PostHog thresholds', async () => {
    const p75 = await query({ kind: 'WebVitalsPathBreakdownQuery', metric: 'LCP', percentile: 'p75', thresholds: [2500, 4000] });
    expect(p75.results).toEqual([
      { good: [{ path: '/pricing', value: 1200 }], needs_improvements: [{ path: '/', value: 4000 }], poor: [] },
    ]);
    const p90 = await query({ kind: 'WebVitalsPathBreakdownQuery', metric: 'LCP', percentile: 'p90' });
    expect(p90.results[0].poor).toEqual([{ path: '/', value: 4600 }]);
    const cls = await query({ kind: 'WebVitalsPathBreakdownQuery', metric: 'CLS', percentile: 'p75' });
    expect(cls.results[0].good).toEqual([{ path: '/', value: 0.05 }]);
    const none = await query({ kind: 'WebVitalsPathBreakdownQuery', metric: 'INP', percentile: 'p75' });
    expect(none.results).toEqual([{ good: [], needs_improvements: [], poor: [] }]);
  });

  it("answers the page's eight vitals asked at once as each asked alone, metric by metric", async () => {
    const asks = ['LCP', 'INP', 'CLS', 'FCP'].flatMap((metric) =>
      ['p75', 'p90'].map((percentile) => ({ kind: 'WebVitalsPathBreakdownQuery', metric, percentile })),
    );
    const alone: unknown[] = [];
    for (const ask of asks) alone.push((await query(ask)).results);
    const together = await Promise.all(asks.map(async (ask) => (await query(ask)).results));
    expect(together).toEqual(alone);
    expect(alone.map((r: any) => r[0].good.length + r[0].needs_improvements.length + r[0].poor.length)).toEqual([2, 2, 0, 0, 1, 1, 0, 0]);
    // A filter is a computation of its own, not the unfiltered one's tables.
    const filtered = await query({
      kind: 'WebVitalsPathBreakdownQuery',
      metric: 'LCP',
      percentile: 'p75',
      properties: [{ type: 'event', key: '$pathname', operator: 'exact', value: '/pricing' }],
    });
    expect(filtered.results).toEqual([{ good: [{ path: '/pricing', value: 1200 }], needs_improvements: [], poor: [] }]);
  });
});

describe('confinement and bad queries', () => {
  it('counts only the environment of the URL', async () => {
    const mine = tiles(await query({ kind: 'WebOverviewQuery', team_id: other.id }));
    expect(mine.visitors.value).toBe(2);
    const theirs = tiles(await query({ kind: 'WebOverviewQuery' }, `/api/environments/${other.id}`));
    expect([theirs.visitors.value, theirs.views.value, theirs.sessions.value]).toEqual([4, 8, 6]);
    const pages = table(await query({ kind: 'WebStatsTableQuery', breakdownBy: 'Page' }, `/api/environments/${other.id}`));
    expect(pages[0]).toEqual(['/', 4, 4]);
  });

  it('takes filter keys and values as data, never as SQL', async () => {
    for (const text of ["x' OR 1=1 OR '", "') OR team_id != 0 --", '{p0:String}']) {
      for (const filter of [
        { key: '$pathname', value: text },
        { key: text, value: '/', operator: 'exact' },
      ]) {
        const t = tiles(await query({ kind: 'WebOverviewQuery', properties: [{ ...filter, type: 'event' }] }));
        expect(t.views.value, text).toBe(0);
      }
    }
  });

  it('answers 400 in PostHog envelope for a bad query', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ kind: 'WebStatsTableQuery', breakdownBy: 'Nope' }, 'query__breakdownBy'],
      [{ kind: 'WebStatsTableQuery', breakdownBy: 'Page', limit: 0 }, 'query__limit'],
      [{ kind: 'WebVitalsPathBreakdownQuery', metric: 'TTFB' }, 'query__metric'],
      [{ kind: 'WebVitalsPathBreakdownQuery', metric: 'LCP', percentile: 'p50' }, 'query__percentile'],
      [{ kind: 'WebVitalsPathBreakdownQuery', metric: 'LCP', thresholds: [4000, 2500] }, 'query__thresholds'],
      [{ kind: 'WebOverviewQuery', dateRange: { date_from: 'yesterday-ish' } }, 'query__dateRange__date_from'],
      [{ kind: 'WebOverviewQuery', properties: [{ key: '$pathname', operator: 'nope' }] }, 'query__properties__0__operator'],
      [{ kind: 'WebOverviewQuery', compareFilter: { compare: 'yes' } }, 'query__compareFilter__compare'],
    ];
    for (const [body, attr] of cases) {
      const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query: { dateRange: DATE_RANGE, ...body } } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', attr });
    }
  });
});
