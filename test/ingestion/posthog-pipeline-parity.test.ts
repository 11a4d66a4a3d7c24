import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromJson } from '../../src/platform/db/values.js';
import { personUuidFromDistinctId } from '../../src/persons/person-uuid.js';
import { getPersonByDistinctId } from '../../src/persons/store.js';
import { useTestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';

/**
 * Where the worker follows PostHog's pipeline for events it treats apart, through capture and the
 * worker: personless events and groups (process-groups-step.ts: `$group_<n>` and group upserts only
 * when the person is processed), `$groupidentify` (groups.ts reads `$groups` only;
 * normalizeProcessPerson strips its person updates), `$$client_ingestion_warning` and `$$heatmap`
 * (their own pipelines: no event row, no person), `$exception` (error tracking: person and group
 * types read only), new persons' `$creator_event_uuid` (person-create-service.ts), and sanitizeEvent's
 * request context.
 */
const server = useTestServer();
const db = () => server.running.ctx.database.db;
const teamId = () => server.bootstrap.team.id;

async function capture(events: Array<Record<string, unknown>>, sentAt?: string, headers: Record<string, string> = {}): Promise<string[]> {
  const batch = events.map((e) => ({ uuid: randomUUID(), ...e }));
  const res = await fetch(`${server.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ api_key: server.token, batch, ...(sentAt ? { sent_at: sentAt } : {}) }),
  });
  expect(res.status).toBe(200);
  await server.settle();
  return batch.map((e) => e.uuid as string);
}

async function storedEvent(uuid: string) {
  const row = (await storedEvents(server.running.ctx.analytics, teamId())).find((e) => e.uuid === uuid);
  return (
    row && {
      event: row.event,
      person_id: row.person_id,
      properties: JSON.parse(row.properties) as Record<string, any>,
      session_id: row.session_id,
    }
  );
}

async function groupTypes(): Promise<string[]> {
  const rows = await db().selectFrom('group_type_mappings').select('group_type').where('team_id', '=', teamId()).execute();
  return rows.map((r) => r.group_type);
}

async function typeIndex(groupType: string): Promise<number | undefined> {
  const mapping = await db()
    .selectFrom('group_type_mappings')
    .select('group_type_index')
    .where('team_id', '=', teamId())
    .where('group_type', '=', groupType)
    .executeTakeFirst();
  return mapping && Number(mapping.group_type_index);
}

async function group(groupType: string, key: string) {
  const index = await typeIndex(groupType);
  if (index === undefined) return undefined;
  return db()
    .selectFrom('groups')
    .select(['group_key', 'group_properties'])
    .where('team_id', '=', teamId())
    .where('group_type_index', '=', index)
    .where('group_key', '=', key)
    .executeTakeFirst();
}

async function warnings(type: string): Promise<Array<Record<string, unknown>>> {
  const rows = await db()
    .selectFrom('ingestion_warnings')
    .select('details')
    .where('team_id', '=', teamId())
    .where('type', '=', type)
    .execute();
  return rows.map((r) => fromJson<Record<string, unknown>>(r.details));
}

describe('personless events and groups', () => {
  it('attach no group and create no group type', async () => {
    const [uuid] = await capture([
      { event: 'anonymous view', distinct_id: 'pl-1', properties: { $process_person_profile: false, $groups: { pl_company: 'acme' } } },
    ]);
    const event = (await storedEvent(uuid!))!;
    expect(event.properties.$group_0).toBeUndefined();
    expect(event.properties.$groups).toEqual({ pl_company: 'acme' });
    expect(await groupTypes()).not.toContain('pl_company');
    expect(await getPersonByDistinctId(db(), teamId(), 'pl-1')).toBeUndefined();
  });
});

describe('$groupidentify', () => {
  it('creates or updates its group, is attached to groups by $groups only, and stores no person update', async () => {
    const [alone, withGroups] = await capture([
      {
        event: '$groupidentify',
        distinct_id: 'gi-1',
        properties: { $group_type: 'gi_company', $group_key: 'acme', $group_set: { name: 'Acme' }, $set: { role: 'admin' } },
      },
      {
        event: '$groupidentify',
        distinct_id: 'gi-1',
        properties: { $group_type: 'gi_company', $group_key: 'acme', $group_set: { size: 5 }, $groups: { gi_company: 'acme' } },
      },
    ]);
    expect(await group('gi_company', 'acme')).toBeDefined();
    expect(fromJson((await group('gi_company', 'acme'))!.group_properties)).toEqual({ name: 'Acme', size: 5 });
    const first = (await storedEvent(alone!))!.properties;
    expect(
      Object.keys(first)
        .filter((k) => k.startsWith('$group_'))
        .sort(),
    ).toEqual(['$group_key', '$group_set', '$group_type']);
    expect(first.$set).toBeUndefined();
    const second = (await storedEvent(withGroups!))!.properties;
    expect(second[`$group_${await typeIndex('gi_company')}`]).toBe('acme');
    expect((await getPersonByDistinctId(db(), teamId(), 'gi-1'))!.properties.role).toBeUndefined();
  });

  it('creates no group for a falsy $group_key', async () => {
    await capture([
      { event: '$groupidentify', distinct_id: 'gi-2', properties: { $group_type: 'gi_zero', $group_key: 0, $group_set: { n: 1 } } },
      { event: '$groupidentify', distinct_id: 'gi-2', properties: { $group_type: 'gi_zero', $group_key: '', $group_set: { n: 2 } } },
    ]);
    // The type is made sure of (updateGroupsAndFirstEvent: it has a $group_set), the group is not.
    const index = await typeIndex('gi_zero');
    expect(index).toBeDefined();
    const groups = await db()
      .selectFrom('groups')
      .select('group_key')
      .where('team_id', '=', teamId())
      .where('group_type_index', '=', index!)
      .execute();
    expect(groups).toEqual([]);
  });

  it('copies $groups values as they are: a number stays a number', async () => {
    await capture([{ event: '$groupidentify', distinct_id: 'gi-3', properties: { $group_type: 'gi_numeric', $group_key: 42 } }]);
    const [uuid] = await capture([{ event: 'numbered', distinct_id: 'gi-3', properties: { $groups: { gi_numeric: 42 } } }]);
    expect((await storedEvent(uuid!))!.properties[`$group_${await typeIndex('gi_numeric')}`]).toBe(42);
    expect(await group('gi_numeric', '42')).toBeDefined();
  });
});

describe('events of other pipelines', () => {
  it('records a $$client_ingestion_warning as a warning, with no event and no person', async () => {
    const [uuid] = await capture([
      { event: '$$client_ingestion_warning', distinct_id: 'cw-1', properties: { $$client_ingestion_warning_message: 'queue full' } },
    ]);
    expect(await storedEvent(uuid!)).toBeUndefined();
    expect(await getPersonByDistinctId(db(), teamId(), 'cw-1')).toBeUndefined();
    expect(await warnings('client_ingestion_warning')).toContainEqual({
      eventUuid: uuid,
      event: '$$client_ingestion_warning',
      distinctId: 'cw-1',
      message: 'queue full',
    });
  });

  it('stores no event and no person for a $$heatmap', async () => {
    const [uuid] = await capture([
      { event: '$$heatmap', distinct_id: 'hm-1', properties: { $heatmap_data: { 'https://x.io/': [{ x: 1, y: 2, type: 'click' }] } } },
    ]);
    expect(await storedEvent(uuid!)).toBeUndefined();
    expect(await getPersonByDistinctId(db(), teamId(), 'hm-1')).toBeUndefined();
  });

  it('attributes an $exception to the person its distinct id has, and creates or changes none', async () => {
    await capture([{ event: 'signed up', distinct_id: 'ex-1', properties: { $set: { plan: 'free' }, $groups: { ex_company: 'acme' } } }]);
    const person = (await getPersonByDistinctId(db(), teamId(), 'ex-1'))!;
    const [known, unknown] = await capture([
      { event: '$exception', distinct_id: 'ex-1', properties: { $set: { plan: 'pro' }, $groups: { ex_company: 'acme', ex_other: 'x' } } },
      { event: '$exception', distinct_id: 'ex-2', properties: { $set: { plan: 'pro' } } },
    ]);
    const onKnown = (await storedEvent(known!))!;
    expect(onKnown.person_id).toBe(person.uuid);
    expect(onKnown.properties.$set).toBeUndefined();
    expect(onKnown.properties[`$group_${await typeIndex('ex_company')}`]).toBe('acme');
    expect(await groupTypes()).not.toContain('ex_other');
    expect((await getPersonByDistinctId(db(), teamId(), 'ex-1'))!.properties.plan).toBe('free');
    expect(await getPersonByDistinctId(db(), teamId(), 'ex-2')).toBeUndefined();
    expect((await storedEvent(unknown!))!.person_id).toBe(personUuidFromDistinctId(teamId(), 'ex-2'));
  });
});

describe('new persons', () => {
  it('record the uuid of the event that created them, also when an identify creates one for two ids', async () => {
    const [created] = await capture([{ event: 'first', distinct_id: 'np-1', properties: { $set: { a: 1 }, $set_once: { b: 2 } } }]);
    expect((await getPersonByDistinctId(db(), teamId(), 'np-1'))!.properties).toEqual({ a: 1, b: 2, $creator_event_uuid: created });
    const [identify] = await capture([
      { event: '$identify', distinct_id: 'np-user', properties: { $anon_distinct_id: 'np-anon', $set: { c: 3 } } },
    ]);
    expect((await getPersonByDistinctId(db(), teamId(), 'np-anon'))!.properties).toEqual({ c: 3, $creator_event_uuid: identify });
    // Later events keep it.
    await capture([{ event: 'second', distinct_id: 'np-1', properties: { $set: { a: 2 } } }]);
    expect((await getPersonByDistinctId(db(), teamId(), 'np-1'))!.properties.$creator_event_uuid).toBe(created);
  });
});

describe('request context and person mode on stored properties', () => {
  it('adds $sent_at, replaces an empty $ip, lower-cases a UUID session id and drops $process_person_profile: true', async () => {
    const sentAt = new Date().toISOString();
    const [uuid] = await capture(
      [
        {
          event: 'normalised',
          distinct_id: 'nm-1',
          properties: { $ip: null, $session_id: '0190F2B4-AB12-7000-8000-0000000000AB', $process_person_profile: true },
        },
      ],
      sentAt,
      { 'x-forwarded-for': '198.51.100.23' },
    );
    const event = (await storedEvent(uuid!))!;
    expect(event.properties.$sent_at).toBe(sentAt);
    expect(event.properties.$session_id).toBe('0190f2b4-ab12-7000-8000-0000000000ab');
    expect(event.session_id).toBe('0190f2b4-ab12-7000-8000-0000000000ab');
    expect('$process_person_profile' in event.properties).toBe(false);
    expect(typeof event.properties.$ip).toBe('string');
    expect(event.properties.$ip).not.toBe('');
  });

  it('names the event in the warnings about its timestamp and person mode', async () => {
    const [badTimestamp, badFlag, refused] = await capture([
      { event: 'bad time', distinct_id: 'wd-1', timestamp: 'not a date' },
      { event: 'bad flag', distinct_id: 'wd-1', properties: { $process_person_profile: 'sometimes' } },
      { event: '$identify', distinct_id: 'wd-1', properties: { $process_person_profile: false, $anon_distinct_id: 'wd-0' } },
    ]);
    expect(await warnings('ignored_invalid_timestamp')).toContainEqual({
      eventUuid: badTimestamp,
      field: 'timestamp',
      value: 'not a date',
      reason: 'invalid format',
    });
    expect(await warnings('invalid_process_person_profile')).toContainEqual({
      eventUuid: badFlag,
      event: 'bad flag',
      distinctId: 'wd-1',
      $process_person_profile: 'sometimes',
      message: 'Only a boolean value is valid for the $process_person_profile property',
    });
    expect(await warnings('invalid_event_when_process_person_profile_is_false')).toContainEqual({
      eventUuid: refused,
      event: '$identify',
      distinctId: 'wd-1',
    });
  });
});
