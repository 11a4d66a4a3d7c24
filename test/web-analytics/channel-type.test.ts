/**
 * One channel type: the web analytics channels table (ClickHouse, posthog/channel-type-sql.ts) and
 * the TypeScript evaluation recordings use (posthog/channel-type.ts) agree, session by
 * session, on a fixture that reaches every channel the rules can give, with the team's custom rules,
 * and on sessions whose events disagree on the attribution (the first pageview's counts, whole).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { computeSessionProperties } from '../../src/recordings/core/index.js';
import { DEFAULT_CHANNEL_TYPES, readCustomChannelRules, type CustomChannelRule } from '../../src/posthog/channel-type.js';
import { channelTypeSql } from '../../src/posthog/channel-type-sql.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const RULES: unknown[] = [
  // Invalid for ClickHouse's RE2 (look-ahead): a missing value, so never this channel.
  { channel_type: 'Broken', combiner: 'AND', items: [{ key: 'utm_source', op: 'regex', value: 'a(?=b)' }] },
  {
    channel_type: 'Partners',
    combiner: 'OR',
    items: [
      { key: 'utm_source', op: 'exact', value: ['partner-a', 'partner-b'] },
      { key: 'pathname', op: 'regex', value: '^/partners/' },
    ],
  },
  { channel_type: "Quote's", combiner: 'AND', items: [{ key: 'referring_domain', op: 'icontains', value: "o'brien" }] },
  // PostHog's icontains is `ilike(x, '%value%')`: `_` and `%` are wildcards, a backslash escapes one.
  { channel_type: 'Deals', combiner: 'AND', items: [{ key: 'utm_campaign', op: 'icontains', value: 'b_g%deal' }] },
  { channel_type: 'Percent', combiner: 'AND', items: [{ key: 'utm_campaign', op: 'icontains', value: '100\\%' }] },
  // Not a rule: left out, not a failure.
  { channel_type: 'Malformed', items: [{ key: 'nope', op: 'exact', value: 'x' }] },
];

/** Each session's entry attribution (one a case), with the channel it reaches noted for the reader. */
const CASES: Array<[channel: string, properties: Record<string, unknown>, path?: string]> = [
  ['Cross Network', { utm_campaign: 'EU-Cross-Network-Q4', $referring_domain: '$direct' }],
  ['Paid Search', { gclid: 'g1', $referring_domain: 'www.google.com' }],
  ['Paid Search', { gad_source: '1', $referring_domain: '$direct' }],
  ['Paid Search', { utm_source: 'bing', utm_medium: 'ppc', $referring_domain: 'www.bing.com' }],
  ['Paid Social', { utm_source: 'facebook', utm_medium: 'paid_social', $referring_domain: 'l.facebook.com' }],
  ['Paid Social', { utm_medium: 'cpc', fbclid: 'f1', $referring_domain: '$direct' }],
  ['Paid Video', { utm_source: 'youtube', utm_medium: 'cpv', $referring_domain: 'www.youtube.com' }],
  ['Paid Video', { utm_medium: 'cpc', utm_campaign: 'video-launch', $referring_domain: '$direct' }],
  ['Paid Shopping', { utm_medium: 'cpc', utm_campaign: 'summer-shopping', $referring_domain: '$direct' }],
  ['Paid Shopping', { utm_source: 'amazon', gad_source: '5', $referring_domain: '$direct' }],
  ['Paid Unknown', { utm_medium: 'CPC', $referring_domain: '$direct' }],
  ['Display', { utm_medium: 'display', gclid: 'g2', $referring_domain: '$direct' }],
  ['Direct', { $referring_domain: '$direct' }],
  ['Direct', { utm_source: '(direct)', $referring_domain: '$direct' }],
  ['Direct', { utm_source: 'null', utm_medium: '', $referring_domain: '$direct' }],
  ['Organic Search', { $referring_domain: 'www.google.co.uk' }],
  ['Organic Search', { utm_source: 'Google', $referring_domain: 'www.google.com' }],
  ['Organic Search', { $referring_domain: 'duckduckgo.com' }],
  ['Organic Social', { $referring_domain: 'l.facebook.com' }],
  ['Organic Social', { utm_medium: 'social', $referring_domain: 'mastodon.example' }],
  ['Organic Social', { fbclid: 'f2', $referring_domain: '$direct' }],
  ['Organic Video', { $referring_domain: 'm.youtube.com' }],
  ['Organic Video', { utm_campaign: 'video', $referring_domain: 'x.test' }],
  ['Organic Shopping', { utm_source: 'amazon', $referring_domain: '$direct' }],
  ['Organic Shopping', { utm_campaign: 'spring-shop-sale', $referring_domain: 'x.test' }],
  ['Email', { utm_medium: 'email', $referring_domain: '$direct' }],
  ['Email', { utm_source: 'mail.google.com', $referring_domain: '$direct' }],
  ['Push', { utm_medium: 'push', $referring_domain: '$direct' }],
  ['Push', { utm_medium: 'web-push', $referring_domain: '$direct' }],
  ['Audio', { utm_medium: 'audio', $referring_domain: '$direct' }],
  ['Affiliate', { utm_medium: 'affiliate', $referring_domain: 'deals.example' }],
  ['Affiliate', { utm_medium: 'partnership', $referring_domain: '$direct' }],
  ['Referral', { $referring_domain: 'blog.example.org' }],
  ['Referral', { utm_medium: 'referral', $referring_domain: '$direct' }],
  // ClickHouse's lookups keep case: an upper-case host is no known source.
  ['Referral', { $referring_domain: 'WWW.GOOGLE.COM' }],
  ['Unknown', {}],
  ['Partners', { utm_source: 'partner-b', utm_medium: 'cpc', $referring_domain: '$direct' }],
  ['Partners', { $referring_domain: 'www.google.com' }, '/partners/welcome'],
  ["Quote's", { $referring_domain: "o'brien.example" }],
  ['Deals', { utm_campaign: 'BIG-summer-Deal', $referring_domain: '$direct' }],
  ['Percent', { utm_campaign: 'save-100%', $referring_domain: '$direct' }],
  // No `%` after 100: not Percent.
  ['Direct', { utm_campaign: 'save-1000', $referring_domain: '$direct' }],
];

/**
 * Sessions whose events disagree on the attribution, with the channel PostHog's raw_sessions v3
 * gives: all inputs from the first pageview (a pageview before any other event), taken together.
 * Each field's own earliest value would give the channel in the comment.
 */
const ORDER_CASES: Array<[channel: string, events: Array<[event: string, properties: Record<string, unknown>]>]> = [
  // A non-pageview first, with other utm values than the first pageview's (Email otherwise).
  [
    'Paid Search',
    [
      ['clicked', { utm_source: 'newsletter', utm_medium: 'email', $referring_domain: '$direct' }],
      ['$pageview', { utm_source: 'google', utm_medium: 'cpc', $referring_domain: 'www.google.com' }],
      ['$pageview', {}],
    ],
  ],
  // The first pageview has no utm_source; a later event and a later pageview do (Email otherwise).
  [
    'Organic Search',
    [
      ['$pageview', { $referring_domain: 'www.google.com' }],
      ['$autocapture', { utm_source: 'newsletter', utm_medium: 'email' }],
      ['$pageview', { utm_source: 'newsletter', utm_medium: 'email', $referring_domain: 'www.google.com' }],
    ],
  ],
  // Only a non-pageview carries a gclid: not the entry's (Paid Search otherwise).
  [
    'Referral',
    [
      ['$autocapture', { gclid: 'g3', $referring_domain: 'www.google.com' }],
      ['$pageview', { $referring_domain: 'blog.example.org' }],
    ],
  ],
];

const START = Date.parse('2025-11-12T10:00:00Z');
const ORDER_START = Date.parse('2025-11-14T10:00:00Z');

/** The events of CASES and ORDER_CASES, one session each. */
function fixture(): Array<{ event: string; distinct_id: string; timestamp: string; properties: Record<string, unknown> }> {
  const ordered = ORDER_CASES.flatMap(([, events], i) =>
    events.map(([event, properties], n) => ({
      event,
      distinct_id: `ordered-${i}`,
      timestamp: new Date(ORDER_START + i * 3_600_000 + n * 1000).toISOString(),
      properties: { $session_id: `ordered-${i}`, $pathname: '/', $current_url: 'https://shop.example/', ...properties },
    })),
  );
  return [...cases(), ...ordered];
}

/** Session i has i + 1 pageviews, so a session counted under another channel changes that channel's views. */
function cases(): Array<{ event: string; distinct_id: string; timestamp: string; properties: Record<string, unknown> }> {
  return CASES.flatMap(([, properties, path = '/'], i) =>
    Array.from({ length: i + 1 }, (_, view) => ({
      event: '$pageview',
      distinct_id: `person-${i}`,
      timestamp: new Date(START + i * 3_600_000 + view * 1000).toISOString(),
      // The attribution on the session's first pageview; later ones carry none (as an SPA's do).
      properties: {
        $session_id: `session-${i}`,
        $pathname: view === 0 ? path : '/next',
        $current_url: `https://shop.example${view === 0 ? path : '/next'}`,
        ...(view === 0 ? properties : {}),
      },
    })),
  );
}

beforeAll(async () => {
  const patched = await server.request(`${env()}/`, { method: 'PATCH', body: { modifiers: { customChannelTypeRules: RULES } } });
  expect(patched.status, patched.text).toBe(200);
  await server.ingest(fixture());
});

/** The week's channels table (rows `[channel, [visitors, previous], [views, previous]]`), with the query's `modifiers` if given. */
async function channelTable(modifiers?: Record<string, unknown>): Promise<any[]> {
  const res = await server.request(`${env()}/query/`, {
    method: 'POST',
    body: {
      query: {
        kind: 'WebStatsTableQuery',
        breakdownBy: 'InitialChannelType',
        dateRange: { date_from: '2025-11-10', date_to: '2025-11-16' },
        compareFilter: { compare: false },
        limit: 100,
        ...(modifiers ? { modifiers } : {}),
      },
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.results;
}

describe('the channel type', () => {
  it('is the same in the web analytics channels table as in the TypeScript evaluation, for every channel', async () => {
    const events = fixture();
    const sessions = computeSessionProperties(events, { customChannelRules: readCustomChannelRules({ customChannelTypeRules: RULES }) });
    const expected = new Map<string, { visitors: number; views: number }>();
    CASES.forEach(([noted], i) => {
      const channel = sessions.get(`session-${i}`)!.$channel_type;
      expect(channel, `case ${i}: ${JSON.stringify(CASES[i])}`).toBe(noted);
      const row = expected.get(channel) ?? { visitors: 0, views: 0 };
      expected.set(channel, { visitors: row.visitors + 1, views: row.views + i + 1 });
    });
    ORDER_CASES.forEach(([noted, events], i) => {
      const channel = sessions.get(`ordered-${i}`)!.$channel_type;
      expect(channel, `ordered case ${i}`).toBe(noted);
      const views = events.filter(([event]) => event === '$pageview').length;
      const row = expected.get(channel) ?? { visitors: 0, views: 0 };
      expected.set(channel, { visitors: row.visitors + 1, views: row.views + views });
    });
    // Every channel PostHog's rules can give is reached (SMS is in its list, but no rule gives it).
    const reached = new Set(expected.keys());
    for (const channel of DEFAULT_CHANNEL_TYPES) if (channel !== 'SMS') expect(reached, channel).toContain(channel);
    expect(reached).toContain('Partners');
    expect(reached).not.toContain('Broken');

    const table = new Map<string, { visitors: number; views: number }>(
      (await channelTable()).map((r: any) => [r[0], { visitors: r[1][0], views: r[2][0] }]),
    );
    expect(Object.fromEntries(table)).toEqual(Object.fromEntries(expected));
  });

  it('runs with the query’s own custom rules when it sets them, even to none, the environment’s otherwise', async () => {
    const channels = async (modifiers?: Record<string, unknown>) => (await channelTable(modifiers)).map((r: any) => r[0] as string);
    const sessions = CASES.length + ORDER_CASES.length;
    expect(await channels()).toContain('Partners');
    expect(await channels({ bounceRatePageViewMode: 'count_pageviews' })).toContain('Partners');
    const none = await channels({ customChannelTypeRules: [] });
    expect(none).not.toContain('Partners');
    expect(none).toContain('Paid Search');
    const own = { channel_type: 'Everything', combiner: 'AND', items: [] };
    const everything = await channelTable({ customChannelTypeRules: [own] });
    expect(everything.map((r: any) => [r[0], r[1][0]])).toEqual([['Everything', sessions]]);
  });

  it('binds the custom rules’ values as parameters, never as SQL text', () => {
    const columns = {
      utm_source: 's',
      utm_medium: 'm',
      utm_campaign: 'c',
      referring_domain: 'd',
      has_gclid: 'g',
      has_fbclid: 'f',
      gad_source: 'a',
      url: 'u',
    };
    const rules: CustomChannelRule[] = [
      { channel_type: "x') OR 1 --", combiner: 'AND', items: [{ key: 'utm_source', op: 'exact', value: "'; DROP TABLE events" }] },
    ];
    const { sql, params } = channelTypeSql(columns, rules).compile();
    expect(sql).not.toContain('DROP');
    expect(sql).not.toContain("x')");
    expect(Object.values(params)).toEqual(["'; DROP TABLE events", "x') OR 1 --"]);
  });
});
