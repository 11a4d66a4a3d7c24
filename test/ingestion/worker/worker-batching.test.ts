import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { IngestionWorker } from '../../../src/ingestion/worker/worker.js';
import { personUuidFromDistinctId } from '../../../src/persons/person-uuid.js';
import type { QueueRow } from '../../../src/ingestion/queue.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { storedEvents } from '../../helpers/stored-events.js';

/**
 * The worker applies a whole batch in memory and writes it back at the end. Whatever the batch
 * size, the stored result must be the one of handling the events one at a time: this feeds the
 * same identity-heavy stream (merges, aliases, refusals, personless events, groups, resent uuids,
 * client addresses for GeoIP) through batches of 1, 7 and 1000 events and compares what ends up
 * in the database. Full batches are prepared ahead on the prepare thread (a backlog); the
 * reference prepares every event in the worker's own thread.
 */
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A small deterministic PRNG, so every run (and every batch size) sees the same stream. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function stream(teamId: number): QueueRow[] {
  const random = rng(42);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const anon = Array.from({ length: 80 }, (_, i) => `anon-${i}`);
  const users = Array.from({ length: 25 }, (_, i) => `user-${i}`);
  const visitors = Array.from({ length: 5 }, (_, i) => `visitor-${i}`);
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  const rows: QueueRow[] = [];
  const sent: QueueRow['payload'][] = [];
  for (let n = 0; n < 700; n++) {
    const now = new Date(base + n * 1000).toISOString();
    const roll = random();
    let event = 'clicked';
    let distinctId = pick([...anon, ...users]);
    let properties: Record<string, unknown> = { n };
    if (roll < 0.25) {
      event = '$pageview';
      properties = {
        n,
        $current_url: `https://example.com/${n % 5}`,
        $browser: pick(['Chrome', 'Firefox']),
        utm_source: pick(['ads', null]),
      };
    } else if (roll < 0.4) {
      event = '$identify';
      distinctId = pick(users);
      const other = random() < 0.85 ? pick(anon) : pick([...users, 'null']);
      properties = { n, $anon_distinct_id: other, $set: { email: `${distinctId}@example.com`, step: n } };
    } else if (roll < 0.43) {
      event = random() < 0.3 ? '$merge_dangerously' : '$create_alias';
      distinctId = pick(users);
      properties = { n, alias: pick([...anon, ...anon, ...users]) };
    } else if (roll < 0.6) {
      properties = {
        n,
        $set: { plan: pick(['free', 'pro']), [`k${n % 3}`]: n },
        $set_once: { first: n },
        $unset: random() < 0.3 ? ['k0'] : [],
      };
    } else if (roll < 0.68) {
      distinctId = random() < 0.7 ? pick(visitors) : distinctId;
      properties = { n, $process_person_profile: false, $set: { ignored: true } };
    } else if (roll < 0.73) {
      event = '$groupidentify';
      properties = { n, $group_type: pick(['company', 'team']), $group_key: pick(['acme', 'globex']), $group_set: { seen: n } };
    } else if (roll < 0.77) {
      properties = { n, $groups: { company: pick(['acme', 'initech']), project: `p-${n % 4}` } };
    } else if (roll < 0.8) {
      // Its own `$group_<n>` keys, which the groups step overwrites or keeps.
      properties = { n, $group_0: 'typed-by-hand', $group_3: 'kept', $groups: { company: pick(['acme', 'initech']) } };
    } else if (roll < 0.85 && sent.length > 0) {
      // A resend: same uuid, so it must be stored (and processed) once.
      const again = pick(sent);
      rows.push({ teamId, lane: 'realtime', distinctId: again.distinct_id, payload: { ...again } });
      continue;
    }
    const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const ip = pick([null, '80.156.0.1', '203.0.113.8']);
    const payload = { uuid, event, distinct_id: distinctId, properties, timestamp: now, now, sent_at: null, ip };
    sent.push(payload);
    rows.push({ teamId, lane: 'realtime', distinctId, payload });
  }
  return rows;
}

async function runWith(batchSize: number, { spikeEventsPerSecond = 0, prepareAhead = true } = {}) {
  const server = await startTestServer({ INGESTION_WORKER: 'off' });
  servers.push(server);
  const { database, ingestionQueue } = server.running.ctx;
  const teamId = server.bootstrap.team.id;
  await ingestionQueue.enqueue(stream(teamId));
  const geoip = server.running.ctx.geoip;
  expect(geoip).toBeDefined();
  // Batches of exactly batchSize (no time budget), so that each size is what the test compares.
  const worker = new IngestionWorker(database, pino({ level: 'silent' }), {
    batchSize,
    batchBudgetMs: 0,
    spikeEventsPerSecond,
    prepareAhead,
    geoip,
    analytics: server.running.ctx.analytics,
  });
  await worker.drain();
  await worker.stop();
  // Every full batch but the first is read and prepared ahead (this stream has 700 events).
  expect(worker.batchesPreparedAhead > 0).toBe(prepareAhead && batchSize < 700);
  const { db } = database;
  const persons = await db.selectFrom('persons').selectAll().execute();
  const ids = await db.selectFrom('person_distinct_ids').selectAll().execute();
  const idsOf = new Map<string, string[]>();
  const uuidOfId = new Map(persons.map((p) => [Number(p.id), p.uuid]));
  for (const row of ids) {
    const uuid = uuidOfId.get(Number(row.person_id))!;
    idsOf.set(uuid, [...(idsOf.get(uuid) ?? []), row.distinct_id].sort());
  }
  const label = (uuid: string | null, distinctId: string) =>
    uuid === null
      ? 'none'
      : idsOf.has(uuid)
        ? idsOf.get(uuid)!.join(',')
        : uuid === personUuidFromDistinctId(teamId, distinctId)
          ? 'personless'
          : 'merged-away';
  const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
  const stored = (await storedEvents(server.running.ctx.analytics)).sort((a, b) => (a.uuid < b.uuid ? -1 : 1));
  const events = stored.map((e) => ({
    uuid: e.uuid,
    event: e.event,
    distinctId: e.distinct_id,
    person: label(e.person_id, e.distinct_id),
    properties: parse(e.properties),
    timestamp: e.timestamp,
  }));
  const personList = persons
    .map((p) => ({
      ids: idsOf.get(p.uuid)?.join(',') ?? '',
      properties: parse(p.properties),
      identified: Boolean(p.is_identified === true || p.is_identified === 1),
      version: Number(p.version),
      createdAt: p.created_at,
    }))
    .sort((a, b) => a.ids.localeCompare(b.ids));
  const groups = (await db.selectFrom('groups').selectAll().orderBy('group_type_index').orderBy('group_key').execute()).map((g) => ({
    index: g.group_type_index,
    key: g.group_key,
    properties: parse(g.group_properties),
    version: Number(g.version),
    createdAt: g.created_at,
  }));
  const types = (
    await db.selectFrom('group_type_mappings').select(['group_type', 'group_type_index']).orderBy('group_type_index').execute()
  ).map((t) => [t.group_type, Number(t.group_type_index)]);
  const warnings = (await db.selectFrom('ingestion_warnings').select(['type']).execute()).map((w) => w.type).sort();
  const left = await db
    .selectFrom('ingestion_queue')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return { events, persons: personList, groups, types, warnings, left: Number(left.n) };
}

describe('worker batches', () => {
  it('store the same events, persons and groups as one event at a time', async () => {
    const one = await runWith(1, { prepareAhead: false });
    expect(one.left).toBe(0);
    expect(one.events.length).toBeGreaterThan(500);
    expect(one.persons.some((p) => p.ids.includes(',') && p.identified)).toBe(true);
    expect(one.events.some((e) => e.person === 'personless')).toBe(true);
    expect(one.warnings).toContain('cannot_merge_already_identified');
    expect(one.events.some((e) => e.properties.$geoip_country_code === 'DE')).toBe(true);
    expect(one.events.some((e) => e.properties.$group_3 === 'kept' && e.properties.$group_0 !== 'typed-by-hand')).toBe(true);
    for (const [size, prepareAhead] of [
      [1, true],
      [7, true],
      [7, false],
      [1000, true],
    ] as const) {
      const label = `batch size ${size}${prepareAhead ? ', prepared ahead' : ''}`;
      const batched = await runWith(size, { prepareAhead });
      expect(batched.left).toBe(0);
      expect(batched.persons, `persons, ${label}`).toEqual(one.persons);
      expect(batched.events, `events, ${label}`).toEqual(one.events);
      expect(batched.groups, `groups, ${label}`).toEqual(one.groups);
      expect(batched.types).toEqual(one.types);
      expect(batched.warnings).toEqual(one.warnings);
    }
  }, 300_000);

  it('store every event once when spike detection defers person updates to the overflow lane', async () => {
    const one = await runWith(1, { prepareAhead: false });
    const spiky = await runWith(7, { spikeEventsPerSecond: 1 });
    expect(spiky.left).toBe(0);
    expect(spiky.events.map((e) => e.uuid)).toEqual(one.events.map((e) => e.uuid));
    expect(spiky.warnings).toContain('person_processing_deferred');
    // Deferred updates still reach the persons, merges included.
    expect(spiky.persons.some((p) => p.ids.includes(',') && p.identified)).toBe(true);
  }, 120_000);
});
