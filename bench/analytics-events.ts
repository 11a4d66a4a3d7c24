/**
 * The analytics bench's events: what a web product sends over 30 days, deterministic. 20,000
 * users on 8 pages, in sessions (a visit of a few page views and clicks), with web vitals, utm
 * tags on a fifth of the visits and `$identify` with `$set` when an anonymous visitor signs up.
 */
const PAGES = ['/', '/pricing', '/docs', '/blog', '/signup', '/checkout', '/app', '/settings'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
const OSES = ['Mac OS X', 'Windows', 'iOS', 'Android', 'Linux'];
const DEVICES = ['Desktop', 'Mobile', 'Tablet'];
const SOURCES = ['google', 'newsletter', 'twitter', 'partner'];
const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'IN', 'BR', 'JP'];
export const USERS = 20_000;
const DAY_MS = 86_400_000;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface BenchEvent {
  event: string;
  distinct_id: string;
  timestamp: string;
  uuid: string;
  properties: Record<string, unknown>;
}

/** A uuid from a counter: the same run after run. */
function uuidOf(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/**
 * `count` events in batches of `batchSize`, spread over the 30 days before `end`, visit by visit.
 * Generated lazily: a million events are never all in memory.
 */
export function* analyticsBatches(count: number, batchSize: number, end = Date.now()): Generator<BenchEvent[]> {
  const random = rng(42);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const start = end - 30 * DAY_MS;
  const identified = new Set<number>();
  let n = 0;
  let batch: BenchEvent[] = [];
  const push = (event: BenchEvent) => {
    batch.push(event);
    n++;
  };
  while (n < count) {
    const user = Math.floor(random() * USERS);
    const anonymous = `anon-${user}`;
    const distinctId = identified.has(user) ? `user-${user}@example.com` : anonymous;
    const sessionId = `session-${n}`;
    let at = start + Math.floor(random() * (30 * DAY_MS - 3_600_000));
    const common = {
      $session_id: sessionId,
      $window_id: `window-${n}`,
      $browser: BROWSERS[user % BROWSERS.length],
      $os: OSES[user % OSES.length],
      $device_type: DEVICES[user % DEVICES.length],
      $geoip_country_code: COUNTRIES[user % COUNTRIES.length],
      $host: 'example.com',
      $lib: 'web',
      ...(random() < 0.2
        ? { utm_source: pick(SOURCES), utm_medium: 'cpc', $referring_domain: 'www.google.com' }
        : { $referring_domain: '$direct' }),
    };
    const views = 1 + Math.floor(random() * 6);
    for (let v = 0; v < views && n < count; v++) {
      const page = v === 0 ? pick(PAGES) : PAGES[(PAGES.indexOf(pick(PAGES)) + v) % PAGES.length]!;
      const url = `https://example.com${page}`;
      const properties = { ...common, $current_url: url, $pathname: page };
      push({ event: '$pageview', distinct_id: distinctId, timestamp: new Date(at).toISOString(), uuid: uuidOf(n), properties });
      at += 1000 + Math.floor(random() * 30_000);
      if (n < count && random() < 0.5) {
        push({
          event: '$web_vitals',
          distinct_id: distinctId,
          timestamp: new Date(at).toISOString(),
          uuid: uuidOf(n),
          properties: {
            ...properties,
            $web_vitals_INP_value: Math.round(50 + random() * 400),
            $web_vitals_LCP_value: Math.round(800 + random() * 3000),
          },
        });
      }
      if (n < count && random() < 0.4) {
        push({
          event: '$autocapture',
          distinct_id: distinctId,
          timestamp: new Date(at + 500).toISOString(),
          uuid: uuidOf(n),
          properties: { ...properties, $event_type: 'click' },
        });
      }
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (n < count && !identified.has(user) && random() < 0.1) {
      identified.add(user);
      push({
        event: '$identify',
        distinct_id: `user-${user}@example.com`,
        timestamp: new Date(at + 2000).toISOString(),
        uuid: uuidOf(n),
        properties: { ...common, $anon_distinct_id: anonymous, $set: { email: `user-${user}@example.com`, plan: pick(['free', 'pro']) } },
      });
    }
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
