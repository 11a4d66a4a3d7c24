import { describe, expect, it } from 'vitest';

import {
  channelType,
  cutToFirstSignificantSubdomain,
  defaultChannelType,
  DEFAULT_CHANNEL_TYPES,
  type ChannelInputs,
} from '../../src/posthog/channel-type.js';
import { computeSessionProperties, urlDomain, urlPath, type SessionEventInput } from '../../src/recordings/core/session-properties.js';
import { listSessionPropertyDefinitions, SESSION_PROPERTY_DEFINITIONS } from '../../src/recordings/core/session-property-definitions.js';
import { sessionPropertyValues } from '../../src/recordings/core/session-values.js';

function ev(
  event: string,
  timestamp: string,
  sessionId: string | undefined,
  properties: Record<string, unknown> = {},
  uuid?: string,
): SessionEventInput {
  return {
    event,
    timestamp,
    ...(uuid ? { uuid } : {}),
    properties: sessionId === undefined ? properties : { $session_id: sessionId, ...properties },
  };
}

describe('session property definitions', () => {
  it("lists PostHog's 37 session properties in order with their types", () => {
    expect(SESSION_PROPERTY_DEFINITIONS).toHaveLength(37);
    expect(SESSION_PROPERTY_DEFINITIONS.slice(0, 3).map((d) => d.name)).toEqual([
      '$start_timestamp',
      '$end_timestamp',
      '$entry_current_url',
    ]);
    expect(SESSION_PROPERTY_DEFINITIONS.at(-1)!.name).toBe('$vitals_lcp');
    const byName = new Map(SESSION_PROPERTY_DEFINITIONS.map((d) => [d.name, d]));
    expect(byName.get('$session_duration')).toEqual({
      id: '$session_duration',
      name: '$session_duration',
      is_numerical: true,
      property_type: 'Duration',
      is_seen_on_filtered_events: null,
      tags: [],
    });
    expect(byName.get('$start_timestamp')).toMatchObject({ property_type: 'DateTime', is_numerical: false });
    expect(byName.get('$channel_type')).toMatchObject({ property_type: 'String', is_numerical: false });
    expect(byName.get('$is_bounce')).toMatchObject({ property_type: 'Boolean', is_numerical: false });
    expect(byName.get('$pageview_count')).toMatchObject({ property_type: 'Numeric', is_numerical: true });
    expect(byName.get('$entry__kx')).toMatchObject({ property_type: 'String' });
    expect(byName.has('$exit_current_url')).toBe(false);
    expect(byName.has('$urls')).toBe(false);
  });

  it('filters by search words and is_numerical', () => {
    expect(listSessionPropertyDefinitions().count).toBe(37);
    const utm = listSessionPropertyDefinitions({ search: 'entry utm' });
    expect(utm.results.map((d) => d.name)).toEqual([
      '$entry_utm_source',
      '$entry_utm_campaign',
      '$entry_utm_medium',
      '$entry_utm_term',
      '$entry_utm_content',
    ]);
    expect(listSessionPropertyDefinitions({ search: '$SESSION_duration' }).results.map((d) => d.name)).toEqual(['$session_duration']);
    expect(listSessionPropertyDefinitions({ search: 'pathname end' }).results.map((d) => d.name)).toEqual(['$end_pathname']);
    const numerical = listSessionPropertyDefinitions({ is_numerical: 'true' });
    expect(numerical.results.map((d) => d.name)).toEqual([
      '$pageview_count',
      '$autocapture_count',
      '$screen_count',
      '$session_duration',
      '$vitals_lcp',
    ]);
    expect(listSessionPropertyDefinitions({ is_numerical: 'false' }).count).toBe(32);
    expect(listSessionPropertyDefinitions({ search: 'count', is_numerical: true }).count).toBe(3);
    expect(listSessionPropertyDefinitions({ search: 'nothing-like-this' }).count).toBe(0);
  });
});

describe('url helpers (ClickHouse path / domain)', () => {
  it('extracts path and host', () => {
    expect(urlPath('https://shop.test/checkout?step=2#pay')).toBe('/checkout');
    expect(urlPath('https://shop.test')).toBe('');
    expect(urlPath('https://shop.test/')).toBe('/');
    expect(urlPath('https://shop.test?x=1')).toBe('');
    expect(urlDomain('https://user:pw@Shop.test:8443/a')).toBe('Shop.test');
    expect(urlDomain('shop.test/a/b')).toBe('shop.test');
    expect(urlPath('shop.test/a/b')).toBe('/a/b');
    expect(urlDomain('not a url')).toBe('');
  });
});

describe('computeSessionProperties', () => {
  const events: SessionEventInput[] = [
    // session A: paid google traffic, two pageviews, an autocapture, web vitals
    ev(
      '$pageview',
      '2026-11-20T10:00:00.000Z',
      'sa',
      {
        $current_url: 'https://shop.test/landing?utm_source=google&gclid=abc',
        $referring_domain: 'www.google.com',
        utm_source: 'google',
        utm_medium: 'cpc',
        utm_campaign: 'Winter',
        gclid: 'abc',
      },
      'u1',
    ),
    ev(
      '$autocapture',
      '2026-11-20T10:00:05.000Z',
      'sa',
      { $current_url: 'https://shop.test/landing', $external_click_url: 'https://partner.test/x' },
      'u2',
    ),
    ev(
      '$pageview',
      '2026-11-20T10:00:30.000Z',
      'sa',
      { $current_url: 'https://shop.test/checkout#pay', $referring_domain: 'shop.test' },
      'u3',
    ),
    ev('$pageview', '2026-11-20T10:00:00.000Z', 'sa', { $current_url: 'https://shop.test/landing' }, 'u1'), // duplicate delivery
    ev('$web_vitals', '2026-11-20T10:00:31.000Z', 'sa', { $current_url: 'https://shop.test/checkout', $web_vitals_LCP_value: 2100 }, 'u4'),
    ev('$web_vitals', '2026-11-20T10:00:40.000Z', 'sa', { $current_url: 'https://shop.test/checkout', $web_vitals_LCP_value: 1800 }, 'u5'),
    ev('$pageleave', '2026-11-20T10:01:00.500Z', 'sa', { $current_url: 'https://shop.test/checkout#pay', $external_click_url: '' }, 'u6'),
    // session B: a direct bounce
    ev('$pageview', '2026-11-20T11:00:00.000Z', 'sb', { $current_url: 'https://shop.test/', $referring_domain: '$direct' }, 'b1'),
    ev('$pageleave', '2026-11-20T11:00:03.000Z', 'sb', { $current_url: 'https://shop.test/' }, 'b2'),
    // session C: no page events at all
    ev('purchase', '2026-11-20T12:00:00.000Z', 'sc', { $referring_domain: 'news.ycombinator.com' }, 'c1'),
    // session D: arrives out of order; attribution fields are independent
    ev('$pageview', '2026-11-20T13:00:10.000Z', 'sd', { $current_url: 'https://shop.test/second', utm_campaign: 'late-campaign' }, 'd2'),
    ev(
      '$pageview',
      '2026-11-20T13:00:00.000Z',
      'sd',
      { $current_url: 'https://shop.test/first', utm_source: 'newsletter', utm_medium: 'email', $referring_domain: '$direct' },
      'd1',
    ),
    // session E: a referral
    ev('$screen', '2026-11-20T14:00:00.000Z', 'se', { $referring_domain: 'blog.example.org' }, 'e1'),
    // no session id: ignored
    ev('$pageview', '2026-11-20T15:00:00.000Z', undefined, { $current_url: 'https://shop.test/nosession' }),
  ];
  const sessions = computeSessionProperties(events);

  it('groups by $session_id in order of appearance, skipping events without one', () => {
    expect([...sessions.keys()]).toEqual(['sa', 'sb', 'sc', 'sd', 'se']);
  });

  it('computes entry/end URLs, counts, duration, bounce and vitals', () => {
    const a = sessions.get('sa')!;
    expect(a).toMatchObject({
      $session_id: 'sa',
      $start_timestamp: '2026-11-20T10:00:00.000Z',
      $end_timestamp: '2026-11-20T10:01:00.500Z',
      $entry_current_url: 'https://shop.test/landing?utm_source=google&gclid=abc',
      $entry_pathname: '/landing',
      $entry_hostname: 'shop.test',
      $end_current_url: 'https://shop.test/checkout#pay',
      $end_pathname: '/checkout',
      $end_hostname: 'shop.test',
      $entry_referring_domain: 'www.google.com',
      $entry_utm_source: 'google',
      $entry_utm_medium: 'cpc',
      $entry_utm_campaign: 'Winter',
      $entry_utm_term: null,
      $entry_gclid: 'abc',
      $entry_fbclid: null,
      $pageview_count: 2,
      $autocapture_count: 1,
      $screen_count: 0,
      $session_duration: 60,
      $is_bounce: false,
      $last_external_click_url: 'https://partner.test/x',
      $vitals_lcp: 2100,
      $channel_type: 'Paid Search',
    });
  });

  it('marks bounces: one pageview under 10 s; null without pageviews', () => {
    expect(sessions.get('sb')).toMatchObject({ $is_bounce: true, $session_duration: 3, $channel_type: 'Direct', $pageview_count: 1 });
    expect(sessions.get('sc')).toMatchObject({
      $is_bounce: null,
      $entry_current_url: null,
      $entry_pathname: null,
      $channel_type: 'Organic Social',
    });
    // PostHog's default mode counts pageviews only: a session of screens has no bounce answer.
    expect(sessions.get('se')).toMatchObject({ $is_bounce: null, $screen_count: 1, $channel_type: 'Referral' });
    const clicked = computeSessionProperties([
      ev('$pageview', '2026-11-20T10:00:00.000Z', 's', {}, 'y1'),
      ev('$autocapture', '2026-11-20T10:00:02.000Z', 's', {}, 'y2'),
    ]).get('s')!;
    expect(clicked.$is_bounce).toBe(false);
    const long = computeSessionProperties([
      ev('$pageview', '2026-11-20T10:00:00.000Z', 's', {}, 'x1'),
      ev('$pageleave', '2026-11-20T10:00:10.000Z', 's', {}, 'x2'),
    ]).get('s')!;
    expect(long.$is_bounce).toBe(false);
    const short = computeSessionProperties([
      ev('$pageview', '2026-11-20T10:00:00.000Z', 's', {}, 'x1'),
      ev('$pageleave', '2026-11-20T10:00:09.999Z', 's', {}, 'x2'),
    ]).get('s')!;
    expect(short.$is_bounce).toBe(true);
  });

  it('takes the earliest value of each attribution field independently, whatever the arrival order', () => {
    expect(sessions.get('sd')).toMatchObject({
      $entry_current_url: 'https://shop.test/first',
      $end_current_url: 'https://shop.test/second',
      $entry_utm_source: 'newsletter',
      $entry_utm_campaign: 'late-campaign',
      $channel_type: 'Email',
      $session_duration: 10,
    });
  });

  it('prefers pageviews and screens for entry and end values, as raw_sessions v3 does', () => {
    const prioritised = computeSessionProperties([
      ev('clicked', '2026-11-21T10:00:00.000Z', 'p', {
        $current_url: 'https://x.test/click',
        utm_source: 'newsletter',
        utm_medium: 'email',
      }),
      ev('$pageview', '2026-11-21T10:00:05.000Z', 'p', { $current_url: 'https://x.test/landing', $referring_domain: 'www.google.com' }),
      ev('$screen', '2026-11-21T10:00:06.000Z', 'p', { $current_url: 'https://x.test/screen', utm_campaign: 'spring' }),
      ev('clicked', '2026-11-21T10:00:09.000Z', 'p', { $current_url: 'https://x.test/after' }),
    ]).get('p')!;
    expect(prioritised).toMatchObject({
      $entry_current_url: 'https://x.test/landing',
      $end_current_url: 'https://x.test/screen',
      // Each field its own first value (pageviews first): the click's utm_source, no pageview having one.
      $entry_utm_source: 'newsletter',
      $entry_utm_campaign: 'spring',
      $entry_referring_domain: 'www.google.com',
      // The channel from the first pageview's values together: no utm there.
      $channel_type: 'Organic Search',
    });
    // Another event wins only when a year before the first pageview (ClickHouse's addYears: 29 February + 1 year is 28 February).
    const leap = computeSessionProperties([
      ev('clicked', '2024-02-29T10:00:00.000Z', 'l', { $current_url: 'https://x.test/click' }),
      ev('$pageview', '2025-02-28T11:00:00.000Z', 'l', { $current_url: 'https://x.test/landing' }),
    ]).get('l')!;
    expect(leap.$entry_current_url).toBe('https://x.test/click');
  });

  it('applies custom channel rules first', () => {
    const custom = computeSessionProperties(events, {
      customChannelRules: [
        { channel_type: 'Newsletter', combiner: 'AND', items: [{ key: 'utm_source', op: 'exact', value: ['newsletter', 'digest'] }] },
      ],
    });
    expect(custom.get('sd')!.$channel_type).toBe('Newsletter');
    expect(custom.get('sa')!.$channel_type).toBe('Paid Search');
  });
});

describe('channel type', () => {
  const cases: [ChannelInputs, string][] = [
    [{ utmCampaign: 'EU-Cross-Network-Q4' }, 'Cross Network'],
    [{ utmSource: 'facebook', utmMedium: 'paid_social' }, 'Paid Social'],
    [{ hasGclid: true, referringDomain: 'www.google.com' }, 'Paid Search'],
    [{ gadSource: '1', referringDomain: '$direct' }, 'Paid Search'],
    [{ utmMedium: 'cpc', utmCampaign: 'summer-shopping' }, 'Paid Shopping'],
    [{ utmMedium: 'cpc', utmCampaign: 'video-launch' }, 'Paid Video'],
    [{ utmMedium: 'cpc', hasFbclid: true }, 'Paid Social'],
    [{ utmMedium: 'CPC' }, 'Paid Unknown'],
    [{ utmMedium: 'display', hasGclid: true }, 'Display'],
    [{ referringDomain: '$direct' }, 'Direct'],
    [{ referringDomain: '$direct', utmSource: '(direct)' }, 'Direct'],
    [{ referringDomain: '$direct', utmSource: 'null', utmMedium: '' }, 'Direct'],
    [{ referringDomain: '$direct', hasFbclid: true }, 'Organic Social'],
    [{ utmSource: 'Google', referringDomain: 'www.google.com' }, 'Organic Search'],
    [{ referringDomain: 'www.google.co.uk' }, 'Organic Search'],
    [{ referringDomain: 'l.facebook.com' }, 'Organic Social'],
    [{ referringDomain: 'm.youtube.com' }, 'Organic Video'],
    [{ utmSource: 'amazon' }, 'Organic Shopping'],
    [{ utmCampaign: 'spring-shop-sale', referringDomain: 'x.test' }, 'Organic Shopping'],
    [{ utmMedium: 'email' }, 'Email'],
    [{ utmMedium: 'push' }, 'Push'],
    [{ utmMedium: 'web-push' }, 'Push'],
    [{ utmMedium: 'affiliate' }, 'Affiliate'],
    [{ utmMedium: 'audio' }, 'Audio'],
    [{ utmCampaign: 'video', referringDomain: 'x.test' }, 'Organic Video'],
    [{ referringDomain: 'blog.example.org' }, 'Referral'],
    [{}, 'Unknown'],
  ];
  it.each(cases)('%j → %s', (inputs, expected) => {
    expect(defaultChannelType(inputs)).toBe(expected);
  });

  it('custom rule operators follow ClickHouse NULL semantics', () => {
    const rule = (op: string, value?: string, key = 'utm_source') => [
      { channel_type: 'X', combiner: 'AND' as const, items: [{ key: key as 'utm_source', op: op as 'exact', value }] },
    ];
    expect(channelType({ utmSource: 'Partner' }, rule('icontains', 'part'))).toBe('X');
    // ClickHouse's ilike(x, '%value%'): `_` one character, `%` any, a backslash escapes them.
    expect(channelType({ utmSource: 'PÄRTNER' }, rule('icontains', 'p_rt%r'))).toBe('X');
    expect(channelType({ utmSource: 'spring' }, rule('icontains', 'p_rt'))).toBe('Unknown');
    expect(channelType({ utmSource: '100%' }, rule('icontains', '100\\%'))).toBe('X');
    expect(channelType({ utmSource: '1000' }, rule('icontains', '100\\%'))).toBe('Unknown');
    expect(channelType({ utmSource: 'a\\b' }, rule('icontains', 'a\\b'))).toBe('X');
    expect(channelType({ utmSource: 'a.b' }, rule('icontains', 'a.b'))).toBe('X');
    expect(channelType({ utmSource: 'axb' }, rule('icontains', 'a.b'))).toBe('Unknown');
    expect(channelType({ utmSource: 'a_b' }, rule('not_icontains', 'x_y'))).toBe('X');
    expect(channelType({}, rule('is_not', 'a'))).toBe('Unknown');
    expect(channelType({}, rule('not_icontains', 'a'))).toBe('Unknown');
    expect(channelType({}, rule('is_not_set'))).toBe('X');
    expect(channelType({ utmSource: 'a' }, rule('is_set'))).toBe('X');
    expect(channelType({}, rule('not_regex', '^a'))).toBe('X');
    expect(channelType({}, rule('regex', '.*'))).toBe('Unknown');
    expect(channelType({ pathname: '/docs/x' }, rule('regex', '^/docs', 'pathname'))).toBe('X');
    // ClickHouse's match (RE2): linear time; look-around is invalid there, so a missing value.
    expect(channelType({ utmSource: `${'a'.repeat(5000)}!` }, rule('regex', '(a+)+$'))).toBe('Unknown');
    expect(channelType({ utmSource: `${'a'.repeat(5000)}!` }, rule('not_regex', '(a+)+$'))).toBe('X');
    expect(channelType({ utmSource: 'ab' }, rule('regex', 'a(?=b)'))).toBe('Unknown');
    const or = [
      {
        channel_type: 'Y',
        combiner: 'OR' as const,
        items: [
          { key: 'utm_source' as const, op: 'exact' as const, value: 'nope' },
          { key: 'hostname' as const, op: 'exact' as const, value: 'shop.test' },
        ],
      },
    ];
    expect(channelType({ hostname: 'shop.test' }, or)).toBe('Y');
  });

  it('cutToFirstSignificantSubdomain', () => {
    expect(cutToFirstSignificantSubdomain('www.google.co.uk')).toBe('google.co.uk');
    expect(cutToFirstSignificantSubdomain('l.facebook.com')).toBe('facebook.com');
    expect(cutToFirstSignificantSubdomain('https://news.ycombinator.com/item?id=1')).toBe('ycombinator.com');
    expect(cutToFirstSignificantSubdomain('amazon.com.br')).toBe('amazon.com.br');
    expect(cutToFirstSignificantSubdomain('google')).toBe('');
  });
});

describe('sessionPropertyValues', () => {
  it('requires a key', () => {
    expect(sessionPropertyValues({})).toEqual({
      ok: false,
      status: 400,
      body: { type: 'validation_error', code: 'invalid_input', detail: 'Key not provided', attr: null },
    });
  });

  it('lists channel types: custom names first (unfiltered), then matching defaults, de-duplicated', () => {
    const all = sessionPropertyValues({ key: '$channel_type' });
    expect(all.ok && all.body.results.map((r) => r.name)).toEqual([...DEFAULT_CHANNEL_TYPES]);
    const paid = sessionPropertyValues({ key: '$channel_type', value: 'PAID' });
    expect(paid.ok && paid.body.results.map((r) => r.name)).toEqual([
      'Paid Search',
      'Paid Social',
      'Paid Video',
      'Paid Shopping',
      'Paid Unknown',
    ]);
    const custom = sessionPropertyValues({ key: '$channel_type', value: 'dir', customChannelTypes: ['Partners', 'Direct'] });
    expect(custom.ok && custom.body).toEqual({ results: [{ name: 'Partners' }, { name: 'Direct' }], refreshing: false });
  });

  it('answers "1"/"0" for $is_bounce and nothing for properties without stored values', () => {
    const bounce = sessionPropertyValues({ key: '$is_bounce' });
    expect(bounce.ok && bounce.body.results).toEqual([{ name: '1' }, { name: '0' }]);
    for (const key of ['$entry_hostname', '$session_duration', '$pageview_count', '$vitals_lcp', '$unknown']) {
      const r = sessionPropertyValues({ key, sessions: [{ [key]: 'x' }] });
      expect(r.ok && r.body.results, key).toEqual([]);
    }
  });

  it('returns the most frequent non-empty values, filtered case-insensitively, at most 20', () => {
    const sessions = [
      { $entry_pathname: '/a' },
      { $entry_pathname: '/c' },
      { $entry_pathname: '/a' },
      { $entry_pathname: '/B' },
      { $entry_pathname: '' },
      { $entry_pathname: null },
      { $entry_pathname: '/c' },
      { $entry_pathname: '/a' },
    ];
    const top = sessionPropertyValues({ key: '$entry_pathname', sessions });
    expect(top.ok && top.body.results.map((r) => r.name)).toEqual(['/a', '/c', '/B']);
    const filtered = sessionPropertyValues({ key: '$entry_pathname', value: 'b', sessions });
    expect(filtered.ok && filtered.body.results.map((r) => r.name)).toEqual(['/B']);
    const many = Array.from({ length: 30 }, (_, i) => ({ $entry_utm_source: `src-${String(i).padStart(2, '0')}` }));
    const limited = sessionPropertyValues({ key: '$entry_utm_source', sessions: many });
    expect(limited.ok && limited.body.results).toHaveLength(20);
  });

  it('flattens values that are JSON arrays', () => {
    const r = sessionPropertyValues({ key: '$entry_utm_campaign', sessions: [{ $entry_utm_campaign: '["x",true,{"b":1,"a":2}]' }] });
    expect(r.ok && r.body.results.map((x) => x.name)).toEqual(['x', 'true', '{"a":2,"b":1}']);
  });

  it('works on computed sessions', () => {
    const computed = computeSessionProperties([
      ev('$pageview', '2026-11-20T10:00:00Z', 's1', { $current_url: 'https://a.test/pricing' }, '1'),
      ev('$pageview', '2026-11-20T10:00:00Z', 's2', { $current_url: 'https://a.test/pricing?x=1' }, '2'),
      ev('$pageview', '2026-11-20T10:00:00Z', 's3', { $current_url: 'https://a.test/docs' }, '3'),
    ]);
    const r = sessionPropertyValues({ key: '$entry_pathname', sessions: computed.values() });
    expect(r.ok && r.body.results.map((x) => x.name)).toEqual(['/pricing', '/docs']);
  });
});
