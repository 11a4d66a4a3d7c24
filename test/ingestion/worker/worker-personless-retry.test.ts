import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromJson } from '../../../src/platform/db/values.js';
import { MAX_PROCESSING_ATTEMPTS } from '../../../src/ingestion/worker/worker.js';
import { personUuidFromDistinctId } from '../../../src/persons/person-uuid.js';
import { BACKEND } from '../../helpers/backend.js';
import { BOOM, refuseBoomDistinctIds } from '../../helpers/faults.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { storedEvents } from '../../helpers/stored-events.js';

/**
 * The worker's last resort: when an event's batch fails and the event fails again on its own, it
 * is stored without person processing (`$process_person_profile: false`) with an
 * `event_processing_failed` warning, instead of stalling its lane or being lost. The events behind
 * it are processed normally. Identity events and deferred person updates have no personless form:
 * they are parked instead.
 *
 * Real database faults, no mocking (person processing fails, the personless event can be stored):
 * - on both backends, a trigger in this test's own database refuses to insert a distinct id
 *   ending in "-boom" into person_distinct_ids: only person processing of such an id fails (the
 *   personless event inserts no distinct id);
 * - PostgreSQL only, for identity events: a `$anon_distinct_id` over the btree row limit (~2.7 KB)
 *   of person_distinct_ids' primary key.
 * (Ill-formed text, a lone surrogate or NUL, no longer makes anything fail: see ill-formed-text.)
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await refuseBoomDistinctIds(db());
});
afterAll(async () => {
  await server.close();
});

interface SentEvent {
  event: string;
  distinct_id: string;
  uuid?: string;
  properties?: Record<string, unknown>;
}

async function send(batch: SentEvent[]): Promise<void> {
  const res = await fetch(`${server.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: server.bootstrap.team.apiToken, batch }),
  });
  expect(res.status).toBe(200);
  await server.settle();
}

const db = () => server.running.ctx.database.db;

async function eventsWithUuid(uuid: string) {
  const rows = (await storedEvents(server.running.ctx.analytics)).filter((e) => e.uuid === uuid);
  return rows.map((r) => ({
    distinct_id: r.distinct_id,
    person_id: r.person_id,
    properties: JSON.parse(r.properties) as Record<string, unknown>,
  }));
}

async function warningsFor(key: 'eventUuid' | 'queueId', value: string) {
  const rows = await db().selectFrom('ingestion_warnings').select(['type', 'details']).execute();
  return rows.map((r) => ({ type: r.type, details: fromJson<Record<string, unknown>>(r.details) })).filter((w) => w.details[key] === value);
}

async function personCount(): Promise<number> {
  const row = await db()
    .selectFrom('persons')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The healthy events behind the failing one: each stored once, on the person of its distinct id. */
async function expectProcessedNormally(behind: SentEvent[]): Promise<void> {
  for (const sent of behind) {
    const [stored, ...more] = await eventsWithUuid(sent.uuid!);
    expect(more).toEqual([]);
    const owner = await db()
      .selectFrom('person_distinct_ids as d')
      .innerJoin('persons as p', 'p.id', 'd.person_id')
      .select('p.uuid')
      .where('d.team_id', '=', server.bootstrap.team.id)
      .where('d.distinct_id', '=', sent.distinct_id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ distinct_id: sent.distinct_id, person_id: owner.uuid });
    expect(stored!.properties.$process_person_profile).toBeUndefined();
  }
}

function healthy(label: string): SentEvent[] {
  return [1, 2].map((n) => ({ event: 'behind it', distinct_id: `${label}-healthy-${n}`, uuid: randomUUID() }));
}

interface Trigger {
  name: string;
  backends: Array<typeof BACKEND>;
  failing: (label: string) => SentEvent;
  error: RegExp;
}

const STORABLE_PERSONLESS: Trigger[] = [
  {
    name: 'a new distinct id the database refuses in person_distinct_ids',
    backends: ['sqlite', 'postgres'],
    failing: (label) => ({ event: 'signed up', distinct_id: `${label}-boom`, properties: { plan: 'pro', $set: { name: 'Ada' } } }),
    error: BOOM,
  },
];

const IDENTITY: Trigger[] = [
  {
    name: '$identify whose $anon_distinct_id the database refuses in person_distinct_ids',
    backends: ['sqlite', 'postgres'],
    failing: (label) => ({ event: '$identify', distinct_id: `${label}-user`, properties: { $anon_distinct_id: `${label}-boom` } }),
    error: BOOM,
  },
  {
    name: '$identify with a $anon_distinct_id over the btree index row limit',
    backends: ['postgres'],
    // Random base64 does not compress: the index entry stays over 2704 bytes.
    failing: (label) => ({
      event: '$identify',
      distinct_id: `${label}-user`,
      properties: { $anon_distinct_id: randomBytes(3000).toString('base64') },
    }),
    error: /index row size \d+ exceeds btree version 4 maximum 2704/,
  },
];

/**
 * Sends the failing event followed by healthy events in one request (so in the same lane and
 * batch), and waits until the worker is done with them.
 */
async function sendWithEventsBehind(trigger: Trigger, label: string) {
  const personsBefore = await personCount();
  const failing = { ...trigger.failing(label), uuid: randomUUID() };
  const behind = healthy(label);
  await send([failing, ...behind]);
  return { failing, behind, personsBefore };
}

const forBackend = (triggers: Trigger[]) =>
  triggers.filter((t) => t.backends.includes(BACKEND)).map((t, i) => ({ ...t, label: `case${i}` }));

describe('an event whose person processing fails', () => {
  it.each(forBackend(STORABLE_PERSONLESS))('is stored once, personless, with a warning: $name', async (trigger) => {
    const { failing, behind, personsBefore } = await sendWithEventsBehind(trigger, `stored-${trigger.label}`);

    const stored = await eventsWithUuid(failing.uuid);
    expect(stored).toHaveLength(1);
    // Personless: attributed to the id's derived person uuid, which no person row has.
    expect(stored[0]!.person_id).toBe(personUuidFromDistinctId(server.bootstrap.team.id, failing.distinct_id));
    const person = await db().selectFrom('persons').select('id').where('uuid', '=', stored[0]!.person_id!).executeTakeFirst();
    expect(person).toBeUndefined();
    expect(stored[0]!.properties).toMatchObject({ plan: 'pro', $process_person_profile: false });
    expect(stored[0]!.properties.$set).toBeUndefined();

    // No person for the failing event; one for each healthy distinct id behind it.
    expect(await personCount()).toBe(personsBefore + behind.length);
    await expectProcessedNormally(behind);

    const warnings = await warningsFor('eventUuid', failing.uuid);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.type).toBe('event_processing_failed');
    expect(warnings[0]!.details.error).toMatch(trigger.error);
    expect(warnings[0]!.details.parked).toBeUndefined();

    const left = await db().selectFrom('ingestion_queue').select(['id']).execute();
    expect(left).toEqual([]);
  });
});

describe('an identity event whose person processing fails', () => {
  it.each(forBackend(IDENTITY))('is parked, not dropped, and the events behind it go on: $name', async (trigger) => {
    const { failing, behind, personsBefore } = await sendWithEventsBehind(trigger, `identity-${trigger.label}`);

    expect(await eventsWithUuid(failing.uuid)).toEqual([]);
    expect(await personCount()).toBe(personsBefore + behind.length);
    await expectProcessedNormally(behind);

    const left = await db().selectFrom('ingestion_queue').select(['id', 'payload', 'attempts']).execute();
    expect(left).toHaveLength(1);
    expect(JSON.parse(left[0]!.payload)).toMatchObject({ uuid: failing.uuid, event: '$identify' });
    expect(left[0]!.attempts).toBe(MAX_PROCESSING_ATTEMPTS);

    const warnings = await warningsFor('queueId', String(left[0]!.id));
    expect(warnings.map((w) => w.type)).toEqual(['event_processing_failed']);
    expect(warnings[0]!.details).toMatchObject({ parked: true, error: expect.stringMatching(trigger.error) });
    // Not run through the pipeline as a personless $identify (which it would drop with this warning).
    const dropped = await db()
      .selectFrom('ingestion_warnings')
      .select('id')
      .where('type', '=', 'invalid_event_when_process_person_profile_is_false')
      .execute();
    expect(dropped).toEqual([]);

    // Parked for good: out of the way of the next case.
    await db().deleteFrom('ingestion_queue').where('id', '=', left[0]!.id).execute();
  });
});

describe('a deferred person update whose person processing fails', () => {
  it('is parked, not dropped, and the events behind it go on', async () => {
    // What spike detection leaves in the overflow lane: the event is stored already, this row
    // carries only its person update. Queued directly, as the worker itself queues it.
    const teamId = server.bootstrap.team.id;
    const now = new Date().toISOString();
    const uuid = randomUUID();
    await db()
      .insertInto('ingestion_queue')
      .values({
        team_id: teamId,
        lane: 'overflow',
        distinct_id: 'deferred-boom',
        payload: JSON.stringify({
          uuid,
          event: 'signed up',
          distinct_id: 'deferred-boom',
          properties: { $set: { name: 'Ada' } },
          now,
          ip: null,
          person_only: true,
        }),
        received_at: now,
      })
      .execute();
    const behind = healthy('deferred');
    await send(behind);
    await expectProcessedNormally(behind);

    const left = await db().selectFrom('ingestion_queue').select(['id', 'payload', 'attempts']).execute();
    expect(left).toHaveLength(1);
    expect(JSON.parse(left[0]!.payload)).toMatchObject({ uuid, person_only: true });
    expect(left[0]!.attempts).toBe(MAX_PROCESSING_ATTEMPTS);
    const warnings = await warningsFor('queueId', String(left[0]!.id));
    expect(warnings.map((w) => w.type)).toEqual(['event_processing_failed']);
    expect(warnings[0]!.details).toMatchObject({ parked: true, error: expect.stringMatching(BOOM) });
    const person = await db()
      .selectFrom('person_distinct_ids')
      .select('person_id')
      .where('team_id', '=', teamId)
      .where('distinct_id', '=', 'deferred-boom')
      .executeTakeFirst();
    expect(person).toBeUndefined();

    await db().deleteFrom('ingestion_queue').where('id', '=', left[0]!.id).execute();
  });
});
