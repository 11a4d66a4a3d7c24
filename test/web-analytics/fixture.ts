/**
 * A web analytics fixture whose numbers are worked out by hand, in Europe/Berlin (UTC+1 in
 * November): the current period is 10–16 Nov 2025 local (9 Nov 23:00 UTC to 16 Nov 23:00 UTC),
 * the previous one 3–9 Nov local.
 *
 * Current period — sessions by start:
 *   s1 u1: `/` then `/pricing` 30 s later, US Chrome Desktop Mac OS X, from www.google.com: not a bounce
 *          (starts 9 Nov 23:30 UTC, which is 10 Nov local: current only in the environment's zone)
 *   s2 u2: `/`, DE Firefox Mobile iOS, direct: a bounce (one pageview, 0 s)
 *   s3 u1: `/blog`, then a click 20 s later, US Chrome Desktop Mac OS X, from t.co: not a bounce (20 s)
 *   → visitors 2, views 4, sessions 3, duration (30 + 0 + 20) / 3, bounce rate 1/3.
 * Previous period:
 *   s4 u3: `/` (9 Nov 22:30 UTC, 23:30 local): a bounce; s5 u4: `/pricing`, `/` 60 s later: not a bounce
 *   → visitors 2, views 3, sessions 2, duration 30, bounce rate 1/2.
 * Outside both: s6 (1 Nov) and s7 (17 Nov local).
 * Web vitals (current, in a session of their own, without pageviews): `/` LCP 1000…5000 step 1000 (p75 4000 → needs improvement, p90 4600 → poor),
 * CLS 0.05 (good); `/pricing` LCP 1200 (good).
 */
export const ZONE = 'Europe/Berlin';
export const DATE_RANGE = { date_from: '2025-11-10', date_to: '2025-11-16' };

const US = { $geoip_country_code: 'US', $browser: 'Chrome', $device_type: 'Desktop', $os: 'Mac OS X' };
const DE = { $geoip_country_code: 'DE', $browser: 'Firefox', $device_type: 'Mobile', $os: 'iOS' };

function at(iso: string, seconds = 0): string {
  return new Date(new Date(iso).getTime() + seconds * 1000).toISOString();
}

function pageview(who: string, session: string, timestamp: string, path: string, extra: Record<string, unknown>) {
  return {
    event: '$pageview',
    distinct_id: who,
    timestamp,
    properties: { $session_id: session, $pathname: path, $current_url: `https://shop.example${path}`, ...extra },
  };
}

export function webFixture(prefix = ''): unknown[] {
  const u = (name: string) => `${prefix}${name}`;
  const s = (name: string) => `${prefix}${name}`;
  const s1 = '2025-11-09T23:30:00Z';
  const s3 = '2025-11-13T10:00:00Z';
  const vitals = (path: string, timestamp: string, values: Record<string, number>) => ({
    event: '$web_vitals',
    distinct_id: u('u1'),
    timestamp,
    properties: {
      $session_id: s('sv'),
      $pathname: path,
      ...US,
      ...Object.fromEntries(Object.entries(values).map(([k, v]) => [`$web_vitals_${k}_value`, v])),
    },
  });
  return [
    pageview(u('u1'), s('s1'), s1, '/', { ...US, $referring_domain: 'www.google.com' }),
    pageview(u('u1'), s('s1'), at(s1, 30), '/pricing', { ...US, $referring_domain: 'www.google.com' }),
    pageview(u('u2'), s('s2'), '2025-11-12T10:00:00Z', '/', { ...DE, $referring_domain: '$direct' }),
    pageview(u('u1'), s('s3'), s3, '/blog', { ...US, $referring_domain: 't.co' }),
    { event: 'clicked', distinct_id: u('u1'), timestamp: at(s3, 20), properties: { $session_id: s('s3'), ...US } },
    pageview(u('u3'), s('s4'), '2025-11-09T22:30:00Z', '/', { ...US, $referring_domain: '$direct' }),
    pageview(u('u4'), s('s5'), '2025-11-05T10:00:00Z', '/pricing', { ...DE, $referring_domain: '$direct' }),
    pageview(u('u4'), s('s5'), at('2025-11-05T10:00:00Z', 60), '/', { ...DE, $referring_domain: '$direct' }),
    pageview(u('u5'), s('s6'), '2025-11-01T10:00:00Z', '/old', { ...US }),
    pageview(u('u5'), s('s7'), '2025-11-16T23:30:00Z', '/late', { ...US }),
    ...[1000, 2000, 3000, 4000, 5000].map((lcp, i) => vitals('/', at('2025-11-11T10:00:00Z', i), { LCP: lcp, CLS: 0.05 })),
    vitals('/pricing', '2025-11-11T11:00:00Z', { LCP: 1200 }),
  ];
}
