import { uuidv7 } from '../src/lib/uuid.js';
import { batchEvents, captureEvent } from './bodies.js';
import { extractEvents } from '../src/ingestion/core/index.js';
import type { QueueRow } from '../src/ingestion/queue.js';

/** A small deterministic PRNG: every run processes the same stream. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PAGES = ['/', '/pricing', '/docs', '/blog/launch', '/signup', '/app/dashboard', '/app/settings'];
/** First octets of widely allocated public IPv4 space: the GeoIP database places nearly all of it. */
const PUBLIC_FIRST_OCTETS = [
  3, 5, 8, 13, 18, 23, 31, 34, 37, 45, 50, 52, 62, 66, 72, 77, 81, 85, 89, 91, 94, 98, 104, 109, 122, 142, 151, 176, 185, 188, 195, 212,
  217,
];

/** A visitor's own public address (stable per visitor, as a browser's is between page views). */
function visitorAddress(visitor: number): string {
  const random = rng(visitor + 1);
  const octet = () => Math.floor(random() * 256);
  return `${PUBLIC_FIRST_OCTETS[visitor % PUBLIC_FIRST_OCTETS.length]}.${octet()}.${octet()}.${1 + Math.floor(random() * 254)}`;
}
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];

/**
 * What a web product sends, roughly: visitors browse anonymously (page views carrying the
 * properties PostHog lifts onto persons), a third of them sign up and are identified (a merge of
 * the anonymous person into the user's), users set person properties, some events attach to
 * groups, and a tenth come from `person_profiles: 'identified_only'` pages without a profile.
 * Visitors are interleaved, so a batch touches hundreds of persons, not one. Each visitor comes
 * from a public address of its own, so GeoIP finds a place for most events.
 */
export function realisticWorkload(teamId: number, count: number, visitors = 5000): QueueRow[] {
  const random = rng(7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const identified = new Map<number, string>();
  const start = Date.parse('2026-01-01T00:00:00Z');
  const rows: QueueRow[] = [];
  for (let n = 0; n < count; n++) {
    const visitor = Math.floor(random() * visitors);
    const anon = `anon-${visitor.toString(36)}-${(visitor * 7919).toString(36)}`;
    const user = identified.get(visitor);
    let distinctId = user ?? anon;
    const now = new Date(start + n * 20).toISOString();
    const roll = random();
    let event = '$pageview';
    const page = pick(PAGES);
    let properties: Record<string, unknown> = {
      $lib: 'web',
      $lib_version: '1.434.18',
      $session_id: `s-${visitor}`,
      $current_url: `https://example.com${page}`,
      $pathname: page,
      $browser: pick(BROWSERS),
      $browser_version: 120 + Math.floor(random() * 5),
      $os: 'Mac OS X',
      $device_type: 'Desktop',
      $referrer: '$direct',
      $screen_width: 1920,
      $screen_height: 1080,
      utm_source: random() < 0.2 ? 'newsletter' : null,
    };
    if (!user && roll < 0.03) {
      const id = `user-${visitor}@example.com`;
      identified.set(visitor, id);
      event = '$identify';
      distinctId = id;
      properties = { ...properties, $anon_distinct_id: anon, $set: { email: id, plan: 'free' }, $set_once: { signup_page: page } };
    } else if (roll < 0.15) {
      event = 'feature used';
      properties = {
        ...properties,
        feature: pick(['export', 'share', 'invite', 'search']),
        $set: { last_feature_at: now, plan: pick(['free', 'pro']) },
      };
    } else if (roll < 0.25) {
      event = 'report viewed';
      properties = { ...properties, $groups: { company: `company-${visitor % 300}` } };
    } else if (roll < 0.35) {
      properties = { ...properties, $process_person_profile: false };
    } else if (roll < 0.36) {
      event = '$groupidentify';
      properties = {
        $group_type: 'company',
        $group_key: `company-${visitor % 300}`,
        $group_set: { name: `Company ${visitor % 300}`, seats: visitor % 50 },
      };
    }
    rows.push({
      teamId,
      lane: 'realtime',
      distinctId,
      payload: {
        uuid: uuidv7(start + n * 20),
        event,
        distinct_id: distinctId,
        properties,
        timestamp: now,
        now,
        sent_at: null,
        ip: visitorAddress(visitor),
      },
    });
  }
  return rows;
}

/**
 * What `npm run bench` leaves in the queue for the worker: its /batch/ bodies (100 events of a
 * hundred repeating users, every tenth an `$identify`, each with a `$set`) and, one event in four,
 * its single /capture/ event, through the same extraction as capture, one request's events
 * together (as capture queues them: a chunk row per request). A hundred persons seen over and
 * over: this is the figure that flatters person caching.
 */
export function captureWorkload(teamId: number, count: number): QueueRow[][] {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const batch = batchEvents('phc_bench');
  const single = captureEvent('phc_bench');
  const requests: QueueRow[][] = [];
  let queued = 0;
  for (let n = 0; queued < count; n++) {
    const bodies = n % 4 === 3 ? [{ value: single, endpoint: 'capture' as const }] : [{ value: batch, endpoint: 'batch' as const }];
    for (const body of bodies) {
      const extracted = extractEvents({ value: body.value as never, endpoint: body.endpoint });
      if (!extracted.ok) throw new Error('bench body rejected');
      const now = new Date(start + n * 10).toISOString();
      const rows: QueueRow[] = [];
      for (const e of extracted.events) {
        if (queued + rows.length >= count) break;
        rows.push({
          teamId,
          lane: 'realtime',
          distinctId: e.distinctId,
          payload: {
            uuid: e.uuid ?? uuidv7(start + n * 10),
            event: e.event,
            distinct_id: e.distinctId,
            properties: e.properties,
            timestamp: e.timestamp,
            offset: e.offset,
            set: e.set,
            set_once: e.setOnce,
            unset: e.unset,
            sent_at: null,
            now,
            ip: '127.0.0.1',
          },
        });
      }
      requests.push(rows);
      queued += rows.length;
    }
  }
  return requests;
}
