import type { AppContext } from '../context.js';
import { createFlag } from '../flags/service.js';
import { appendBatch, encodeChunk } from '../recordings/store.js';
import { buildDemoRecording } from './demo-recording.js';
import { getUser } from '../environments/tenancy-store.js';
import type { QueueRow } from '../ingestion/queue.js';
import { lastQueueId, stillQueued } from '../ingestion/queue-admin.js';
import { outboxHoldsRowsUpTo, outboxMark } from '../events/outbox-copy.js';
import { clearDemoDataGenerating } from '../environments/store.js';
import { uuidv7 } from '../lib/uuid.js';
import { chunks } from '../lib/chunks.js';
import type { Team } from '../environments/models.js';

const DAY_MS = 86_400_000;
const PAGES = ['/', '/pricing', '/features', '/blog/launch', '/docs', '/signup', '/checkout'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
const COUNTRIES = [
  ['US', 'United States'],
  ['DE', 'Germany'],
  ['GB', 'United Kingdom'],
  ['FR', 'France'],
  ['BR', 'Brazil'],
];
const SOURCES = [null, 'google', 'newsletter', 'twitter'];
/** Devices with the systems they run, as posthog-js reports them ($device_type, $os). */
const DEVICES = [
  ['Desktop', 'Windows'],
  ['Desktop', 'Mac OS X'],
  ['Desktop', 'Linux'],
  ['Mobile', 'iOS'],
  ['Mobile', 'Android'],
  ['Tablet', 'iOS'],
] as const;
/** What a visit from each source carries besides utm_source, so web analytics can tell its channel. */
const ARRIVAL: Record<string, Record<string, string>> = {
  direct: { $referrer: '$direct', $referring_domain: '$direct' },
  google: { $referrer: 'https://www.google.com/', $referring_domain: 'www.google.com' },
  newsletter: { $referrer: '$direct', $referring_domain: '$direct', utm_medium: 'email' },
  twitter: { $referrer: 'https://t.co/', $referring_domain: 't.co' },
};

/** A small deterministic generator, so demo environments look alike and tests can rely on counts. */
function seeded(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

/**
 * A realistic month of product analytics: visitors browse pages over sessions, some sign up
 * (identify with person properties), some of those purchase; companies are groups. Events go
 * through the normal ingestion queue (historical lane), so persons and groups are built the same
 * way real data is.
 */
export function buildDemoEvents(
  team: Team,
  now: number,
  visitors = 120,
  recording?: { sessionId: string; distinctId: string; startMs: number },
): QueueRow[] {
  const random = seeded(team.id * 7919);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const rows: QueueRow[] = [];
  const push = (distinctId: string, event: string, at: number, properties: Record<string, unknown>) => {
    rows.push({
      teamId: team.id,
      lane: 'historical',
      distinctId,
      payload: {
        uuid: uuidv7(at),
        event,
        distinct_id: distinctId,
        properties: { ...properties, $lib: 'hoglet-demo' },
        timestamp: new Date(at).toISOString(),
        now: new Date(now).toISOString(),
        ip: null,
      },
    });
  };
  for (let v = 0; v < visitors; v++) {
    const anon = `demo-anon-${team.id}-${v}`;
    const [countryCode, countryName] = pick(COUNTRIES);
    const browser = pick(BROWSERS);
    const [deviceType, os] = pick(DEVICES);
    const source = pick(SOURCES);
    const sessions = 1 + Math.floor(random() * 4);
    let identifiedAs: string | undefined;
    for (let s = 0; s < sessions; s++) {
      const sessionStart = now - Math.floor(random() * 30 * DAY_MS);
      const sessionId = uuidv7(sessionStart);
      const distinctId = identifiedAs ?? anon;
      const base = {
        $session_id: sessionId,
        $browser: browser,
        $device_type: deviceType,
        $os: os,
        $geoip_country_code: countryCode,
        $geoip_country_name: countryName,
        ...(source ? { utm_source: source } : {}),
        ...ARRIVAL[source ?? 'direct'],
      };
      // About one session in five leaves after its first page (a bounce).
      const views = random() < 0.2 ? 1 : 2 + Math.floor(random() * 6);
      let at = sessionStart;
      for (let p = 0; p < views; p++) {
        const path = pick(PAGES);
        push(distinctId, '$pageview', at, { ...base, $current_url: `https://demo.hoglet.dev${path}`, $pathname: path });
        at += 5_000 + Math.floor(random() * 90_000);
      }
      if (!identifiedAs && random() < 0.35) {
        identifiedAs = `demo-user-${team.id}-${v}@example.com`;
        push(identifiedAs, '$identify', at, {
          ...base,
          $anon_distinct_id: anon,
          $set: { email: identifiedAs, plan: pick(['free', 'pro', 'enterprise']) },
        });
        push(identifiedAs, '$groupidentify', at + 1, {
          $group_type: 'company',
          $group_key: `company-${v % 12}`,
          $group_set: { name: `Company ${v % 12}`, employees: 10 + (v % 12) * 25 },
        });
      }
      if (identifiedAs && random() < 0.3) {
        push(identifiedAs, 'purchase', at + 2_000, {
          ...base,
          amount: Math.round(20 + random() * 480),
          $groups: { company: `company-${v % 12}` },
        });
      }
    }
  }
  // The recorded session's own pageview, so the recording lists its events and its visit counts.
  if (recording) {
    push(recording.distinctId, '$pageview', recording.startMs, {
      $session_id: recording.sessionId,
      $browser: 'Chrome',
      $device_type: 'Desktop',
      $os: 'Mac OS X',
      $geoip_country_code: 'US',
      $geoip_country_name: 'United States',
      $referrer: '$direct',
      $referring_domain: '$direct',
      $current_url: 'https://demo.hoglet.dev/pricing',
      $pathname: '/pricing',
    });
  }
  return rows;
}

/**
 * Fills a demo environment in the background. The environment was created with its status
 * column at `generating` (`is_generating_demo_data` reads it, so every process gives the same
 * answer); it clears once the worker has processed the events.
 */
export function startDemoDataGeneration(ctx: AppContext, team: Team, userId: number): void {
  const { db } = ctx.database;
  const run = async () => {
    const recordingStart = Date.now() - 2 * DAY_MS;
    const recorded = { sessionId: uuidv7(recordingStart), distinctId: `demo-anon-${team.id}-0`, startMs: recordingStart };
    const rows = buildDemoEvents(team, Date.now(), 120, recorded);
    // The queue ids the demo events get lie above the highest one now and up to the highest one
    // once they are queued: the wait below looks only there (the queue has no team index).
    const firstId = (await lastQueueId(ctx.database)) + 1;
    for (const chunk of chunks(rows, 1000)) await ctx.ingestionQueue.enqueue(chunk);
    const lastId = await lastQueueId(ctx.database);
    ctx.log.info({ team: team.id, events: rows.length }, 'demo data queued');
    // Flags belong to the project; this one is named after the demo environment and is removed
    // with it (it carries the environment's id).
    const recording = buildDemoRecording(recorded.sessionId, recorded.distinctId, recorded.startMs);
    await appendBatch(ctx.database, team.id, recording, await encodeChunk(recording), new Date());
    const user = await getUser(db, userId);
    if (user) {
      await createFlag(ctx, team, user, {
        key: `demo-${team.id}-new-checkout`,
        name: `Demo (${team.name}): new checkout, half of identified users`,
        filters: {
          groups: [{ properties: [{ key: 'email', type: 'person', operator: 'is_set', value: 'is_set' }], rollout_percentage: 50 }],
        },
      });
    }
    const deadline = Date.now() + 10 * 60_000;
    for (;;) {
      if (!(await stillQueued(ctx.database, team.id, firstId, lastId)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // Processed is not yet visible: the batches' events reach ClickHouse with the worker's next copy.
    const processed = await outboxMark(db);
    while ((await outboxHoldsRowsUpTo(db, processed)) && Date.now() <= deadline) await new Promise((r) => setTimeout(r, 250));
  };
  run()
    .catch((error: unknown) => ctx.log.error({ err: error, team: team.id }, 'demo data generation failed'))
    .finally(() => clearDemoDataGenerating(db, team.id).catch(() => undefined));
}
