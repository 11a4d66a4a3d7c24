/**
 * Web analytics' bounce rate, session by session, as PostHog's default mode (`count_pageviews`)
 * decides it: at most one pageview, no autocapture, under 10 s; screens do not count. The same
 * event sent again (same uuid) is one pageview. Through `POST …/query/`, on the backend under test.
 */
import { beforeAll, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const DATE_RANGE = { date_from: '2025-11-10', date_to: '2025-11-16' };
const START = Date.parse('2025-11-12T10:00:00Z');

function event(name: string, session: string, seconds: number, extra: Record<string, unknown> = {}, uuid?: string) {
  return {
    event: name,
    distinct_id: `person-${session}`,
    timestamp: new Date(START + seconds * 1000).toISOString(),
    ...(uuid ? { uuid } : {}),
    properties: { $session_id: session, ...extra },
  };
}

const pageview = (session: string, seconds: number, path: string, uuid?: string) =>
  event('$pageview', session, seconds, { $pathname: path, $current_url: `https://shop.example${path}` }, uuid);

const uuid = (n: number) => `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** Session (its first page, a path no other session has) → whether it bounced. */
const BOUNCED: Record<string, boolean> = {
  '/one': true,
  '/two': false,
  '/dup': true,
  '/dup-two': false,
  '/autocapture': false,
  '/screen': true,
  '/short': true,
  '/long': false,
};

beforeAll(async () => {
  const duplicated = [
    pageview('dup', 0, '/dup', uuid(1)),
    pageview('dup-two', 0, '/dup-two', uuid(2)),
    pageview('dup-two', 1, '/dup-two/b', uuid(3)),
  ];
  await server.ingest([
    pageview('one', 0, '/one'),
    pageview('two', 0, '/two'),
    pageview('two', 1, '/two/b'),
    ...duplicated,
    ...duplicated,
    pageview('autocapture', 0, '/autocapture'),
    event('$autocapture', 'autocapture', 1, { $event_type: 'click' }),
    pageview('screen', 0, '/screen'),
    event('$screen', 'screen', 1, { $screen_name: 'Home' }),
    pageview('short', 0, '/short'),
    event('clicked', 'short', 9),
    pageview('long', 0, '/long'),
    event('clicked', 'long', 10),
  ]);
  // Sent again in a later batch too.
  await server.ingest(duplicated);
});

async function overview(properties: unknown[] = []) {
  const res = await server.request(`/api/environments/${server.bootstrap.team.id}/query/`, {
    method: 'POST',
    body: { query: { kind: 'WebOverviewQuery', dateRange: DATE_RANGE, properties, compareFilter: { compare: false } } },
  });
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries((res.body as any).results.map((r: any) => [r.key, r.value]));
}

it('bounces a session with one pageview, not one with two distinct; a pageview sent twice is one', async () => {
  for (const [path, bounced] of Object.entries(BOUNCED)) {
    const tiles = await overview([{ key: '$pathname', value: path, operator: 'exact', type: 'event' }]);
    expect({ path, sessions: tiles.sessions, views: tiles.views, bounce: tiles['bounce rate'] }).toEqual({
      path,
      sessions: 1,
      views: 1,
      bounce: bounced ? 100 : 0,
    });
  }
  const all = await overview();
  expect(all.sessions).toBe(8);
  expect(all.views).toBe(10);
  expect(all['bounce rate']).toBe(50);
});
