import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personUuidFromDistinctId } from '../../src/persons/person-uuid.js';
import { createKey } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { click, consoleLine, fullSnapshot, input, meta, newSessionId, postSnapshots, snapshotEvent } from './helpers.js';

let server: TestServer;
let token: string;
let env: string;
const HOUR = 3_600_000;

/** A recording of `seconds` seconds that started `agoMs` ago. */
async function record(distinctId: string, agoMs: number, seconds: number, extra: unknown[] = []) {
  const id = newSessionId();
  const t = Date.now() - agoMs;
  const events = [meta(t, `https://app.example/${distinctId}`), fullSnapshot(t + 1), ...extra, click(t + seconds * 1000)];
  const res = await postSnapshots(server, JSON.stringify([snapshotEvent(token, id, events, { distinctId })]), 'application/json');
  expect(res.status).toBe(200);
  return id;
}

beforeAll(async () => {
  server = await startTestServer();
  token = server.bootstrap.team.apiToken;
  env = `/api/environments/${server.bootstrap.team.id}`;
});
afterAll(async () => {
  await server?.close();
});

describe('session recordings API', () => {
  let alice: string;
  let bob: string;
  let old: string;
  beforeAll(async () => {
    // A person with two distinct ids, through the normal capture pipeline.
    const identify = {
      api_key: token,
      batch: [
        { event: '$identify', distinct_id: 'alice@x', properties: { $anon_distinct_id: 'anon-a', $set: { email: 'alice@example.com' } } },
      ],
    };
    expect(
      (
        await fetch(`${server.url}/batch/`, {
          method: 'POST',
          body: JSON.stringify(identify),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(200);
    await server.settle();
    alice = await record('anon-a', 2 * HOUR, 30, [input(Date.now() - 2 * HOUR + 500), consoleLine(Date.now() - 2 * HOUR + 600, 'error')]);
    bob = await record('bob', HOUR, 5);
    old = await record('bob', 5 * 24 * HOUR, 120);
  });

  it('lists the last 3 days by default, newest first, paginated', async () => {
    const res = await server.request(`${env}/session_recordings/`);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => r.id)).toEqual([bob, alice]);
    expect(res.body).toMatchObject({ count: 2, next: null, previous: null, has_next: false });

    const all = await server.request(`/api/projects/${server.bootstrap.team.id}/session_recordings/?date_from=-7d&limit=2`);
    expect(all.body.count).toBe(3);
    expect(all.body.results.map((r: any) => r.id)).toEqual([bob, alice]);
    expect(all.body.has_next).toBe(true);
    expect(all.body.next).toContain('offset=2');
    const second = await server.request(new URL(all.body.next).pathname + new URL(all.body.next).search);
    expect(second.body.results.map((r: any) => r.id)).toEqual([old]);
  });

  it('filters by date range, distinct id, person and minimum duration', async () => {
    const ids = async (query: string) => (await server.request(`${env}/session_recordings/?${query}`)).body.results.map((r: any) => r.id);
    const from = new Date(Date.now() - 6 * 24 * HOUR).toISOString();
    const to = new Date(Date.now() - 90 * 60_000).toISOString();
    expect(await ids(`date_from=${from}&date_to=${to}`)).toEqual([alice, old]);
    expect(await ids('date_from=-7d&distinct_id=bob')).toEqual([bob, old]);
    expect(await ids(`distinct_ids=${encodeURIComponent('["anon-a","nobody"]')}`)).toEqual([alice]);
    // Recorded under the anonymous id, found by the id it was identified as: the person's.
    expect(await ids('distinct_id=alice@x')).toEqual([alice]);
    expect(await ids(`distinct_ids=${encodeURIComponent('["alice@x","bob"]')}`)).toEqual([bob, alice]);
    const person = (await server.request(`${env}/persons/?distinct_id=alice@x`)).body.results[0];
    expect(await ids(`person_uuid=${person.uuid}`)).toEqual([alice]);
    expect(await ids(`person_uuid=01890000-0000-7000-8000-000000000000`)).toEqual([]);
    expect(await ids(`person_uuid=${person.uuid}&distinct_id=bob`)).toEqual([]);
    expect(await ids(`person_uuid=${person.uuid}&distinct_id=anon-a`)).toEqual([alice]);
    expect(await ids('date_from=-7d&min_duration=30')).toEqual([alice, old]);
    expect(
      await ids(
        `date_from=-7d&having_predicates=${encodeURIComponent('[{"key":"duration","operator":"gt","value":60,"type":"recording"}]')}`,
      ),
    ).toEqual([old]);
    expect(await ids('date_from=-7d&order=duration&order_direction=ASC')).toEqual([bob, alice, old]);
    expect((await server.request(`${env}/session_recordings/?date_from=yesterday-ish`)).status).toBe(400);
    // A name every object has is no ordering either.
    for (const order of ['constructor', 'toString', '__proto__']) {
      expect((await server.request(`${env}/session_recordings/?order=${order}`)).status).toBe(400);
    }
    expect((await fetch(`${server.url}/static/rrweb-player/constructor`)).status).toBe(404);
  });

  it('filters by a person with more distinct ids than a statement takes parameters', async () => {
    // A catch-all person merged from 70,000 ids (over SQLite's 32,766 and PostgreSQL's 65,535).
    const { db } = server.running.ctx.database;
    const teamId = server.bootstrap.team.id;
    const person = (await server.request(`${env}/persons/?distinct_id=alice@x`)).body.results[0];
    const personRow = await db.selectFrom('persons').select('id').where('uuid', '=', person.uuid).executeTakeFirstOrThrow();
    const extra = Array.from({ length: 70_000 }, (_, i) => ({ team_id: teamId, distinct_id: `alias-${i}`, person_id: personRow.id }));
    for (let i = 0; i < extra.length; i += 5000)
      await db
        .insertInto('person_distinct_ids')
        .values(extra.slice(i, i + 5000))
        .execute();
    const res = await server.request(`${env}/session_recordings/?person_uuid=${person.uuid}`);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => r.id)).toEqual([alice]);
    await db.deleteFrom('person_distinct_ids').where('distinct_id', 'like', 'alias-%').execute();
  });

  it('retrieves a recording with its person', async () => {
    const res = await server.request(`${env}/session_recordings/${alice}/`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: alice,
      distinct_id: 'anon-a',
      recording_duration: 30,
      keypress_count: 1,
      click_count: 1,
      console_error_count: 1,
      start_url: 'https://app.example/anon-a',
      viewed: false,
    });
    expect(res.body.person).toMatchObject({ name: 'alice@example.com', properties: { email: 'alice@example.com' } });
    expect(res.body.person.distinct_ids.sort()).toEqual(['alice@x', 'anon-a']);
    expect(typeof res.body.person.id).toBe('number');
    // Printed as the persons API prints it (DRF's datetime), not as stored.
    const person = (await server.request(`${env}/persons/?distinct_id=alice@x`)).body.results[0];
    expect(res.body.person.created_at).toBe(person.created_at);
    expect(res.body.person.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    // bob has no person: PostHog's MissingPerson, with the uuid his personless events carry.
    const personless = await server.request(`${env}/session_recordings/${bob}/`);
    expect(personless.body.person).toEqual({
      id: null,
      name: null,
      distinct_ids: ['bob'],
      properties: {},
      created_at: null,
      uuid: personUuidFromDistinctId(server.bootstrap.team.id, 'bob'),
    });
    // Named as the persons API names a person: the environment's display properties first.
    expect((await server.request(`${env}/`, { method: 'PATCH', body: { person_display_name_properties: ['nickname'] } })).status).toBe(200);
    try {
      const renamed = await server.request(`${env}/session_recordings/${alice}/`);
      expect(renamed.body.person.name).toBe('alice@x');
    } finally {
      await server.request(`${env}/`, { method: 'PATCH', body: { person_display_name_properties: null } });
    }
    const missing = await server.request(`${env}/session_recordings/nope/`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Recording not found', attr: null });
  });

  it('PATCH answers 200 with the recording; viewed is per user, person is accepted', async () => {
    const res = await server.request(`${env}/session_recordings/${bob}/`, { method: 'PATCH', body: { viewed: true, person: { id: 1 } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob, viewed: true, distinct_id: 'bob' });
    expect((await server.request(`${env}/session_recordings/${bob}/`)).body.viewed).toBe(true);
    // Another user has not viewed it.
    const { database } = server.running.ctx;
    const { insertUser, insertMembership } = await import('../../src/environments/tenancy-store.js');
    const other = await insertUser(database.db, {
      email: 'o@example.com',
      currentOrganizationId: server.bootstrap.organization.id,
      currentTeamId: server.bootstrap.team.id,
    });
    await insertMembership(database.db, server.bootstrap.organization.id, other.id, 1);
    const key = await createKey(database, other.id, ['session_recording:read']);
    expect((await server.request(`${env}/session_recordings/${bob}/`, { key })).body.viewed).toBe(false);

    expect((await server.request(`${env}/session_recordings/${bob}/`, { method: 'PATCH', body: { viewed: false } })).body.viewed).toBe(
      false,
    );
    expect((await server.request(`${env}/session_recordings/${bob}/`, { method: 'PATCH', body: { viewed: 'maybe' } })).status).toBe(400);
    expect((await server.request(`${env}/session_recordings/${bob}/`, { method: 'PATCH', body: { person: 'x' } })).status).toBe(400);
    expect((await server.request(`${env}/session_recordings/missing/`, { method: 'PATCH', body: { viewed: true } })).status).toBe(404);
  });

  it('snapshots: sources, then blocks; limits as PostHog', async () => {
    const sources = await server.request(`${env}/session_recordings/${alice}/snapshots`);
    expect(sources.body.sources).toEqual([
      { source: 'blob_v2', start_timestamp: expect.any(String), end_timestamp: expect.any(String), blob_key: '0' },
    ]);
    const base = `${env}/session_recordings/${alice}/snapshots?source=blob_v2`;
    expect((await server.request(`${base}&start_blob_key=0`)).body.detail).toBe('Must provide both start blob key and end blob key');
    expect((await server.request(`${base}&start_blob_key=a&end_blob_key=1`)).body.detail).toBe('Blob keys must be integers');
    expect((await server.request(`${base}&start_blob_key=0&end_blob_key=20`)).body.detail).toBe(
      'Cannot request more than 20 blob keys at once',
    );
    expect((await server.request(`${base}&start_blob_key=0&end_blob_key=3`)).status).toBe(404);
    expect((await server.request(`${env}/session_recordings/${alice}/snapshots?source=blob`)).status).toBe(400);
    const block = await server.request(`${base}&start_blob_key=0&end_blob_key=0`);
    expect(
      block.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)[1].type),
    ).toEqual([4, 2, 3, 6, 3]);
  });

  it('checks scopes: read for reads, write for changes', async () => {
    const { database } = server.running.ctx;
    const reader = await createKey(database, server.bootstrap.user.id, ['session_recording:read']);
    expect((await server.request(`${env}/session_recordings/`, { key: reader })).status).toBe(200);
    const patch = await server.request(`${env}/session_recordings/${bob}/`, { key: reader, method: 'PATCH', body: { viewed: true } });
    expect(patch.status).toBe(403);
    expect(patch.body.detail).toBe("API key missing required scope 'session_recording:write'");
  });

  it('DELETE answers 204 and removes the snapshot data', async () => {
    const id = await record('carol', 1000, 2);
    const { db } = server.running.ctx.database;
    const chunks = () => db.selectFrom('recording_chunks').select('seq').where('session_id', '=', id).execute();
    expect(await chunks()).toHaveLength(1);
    const res = await server.request(`${env}/session_recordings/${id}/`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await chunks()).toHaveLength(0);
    expect((await server.request(`${env}/session_recordings/${id}/`)).status).toBe(404);
    expect((await server.request(`${env}/session_recordings/${id}/`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('sharing a recording', () => {
  it('GET keeps one token from the first read, PATCH enables it, the page replays, disabling is immediate', async () => {
    const id = await record('dave', 1000, 3);
    const path = `${env}/session_recordings/${id}/sharing/`;
    const first = await server.request(path);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      created_at: expect.any(String),
      enabled: false,
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]{30}$/),
    });
    // A link copied before sharing is on stays the link: every read, and enabling, keep the token.
    expect((await server.request(path)).body).toEqual(first.body);
    expect((await fetch(`${server.url}/shared/${first.body.access_token}`)).status).toBe(404);

    const enabled = await server.request(path, { method: 'PATCH', body: { enabled: true } });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, created_at: first.body.created_at, access_token: first.body.access_token });
    const shared = enabled.body.access_token;
    expect((await server.request(path)).body).toMatchObject({ enabled: true, access_token: shared });

    const page = await fetch(`${server.url}/shared/${shared}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('/static/rrweb-player/rrweb-player.js');
    expect(html).toContain(id);
    const feed = await fetch(`${server.url}/shared/${shared}/snapshots`);
    expect(feed.status).toBe(200);
    expect(
      (await feed.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toEqual([4, 2, 3]);
    const player = await fetch(`${server.url}/static/rrweb-player/rrweb-player.js`);
    expect(player.status).toBe(200);
    // Read to the end: an unread answer keeps its connection busy, and the server's close waits for it.
    expect((await player.text()).length).toBeGreaterThan(0);

    // The token opens nothing else.
    expect((await server.request(`${env}/session_recordings/${id}/?sharing_access_token=${shared}`, { key: null })).status).toBe(401);
    expect((await server.request(`${env}/session_recordings/?sharing_access_token=${shared}`, { key: null })).status).toBe(401);

    const disabled = await server.request(path, { method: 'PATCH', body: { enabled: false } });
    expect(disabled.body).toMatchObject({ enabled: false, access_token: shared });
    expect((await fetch(`${server.url}/shared/${shared}`)).status).toBe(404);
    expect((await fetch(`${server.url}/shared/${shared}/snapshots`)).status).toBe(404);
    expect((await fetch(`${server.url}/shared/not-a-token`)).status).toBe(404);
  });

  it('needs the sharing_configuration scopes', async () => {
    const id = await record('erin', 1000, 1);
    const { database } = server.running.ctx;
    const reader = await createKey(database, server.bootstrap.user.id, ['sharing_configuration:read']);
    const path = `${env}/session_recordings/${id}/sharing/`;
    expect((await server.request(path, { key: reader })).status).toBe(200);
    const res = await server.request(path, { key: reader, method: 'PATCH', body: { enabled: true } });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe("API key missing required scope 'sharing_configuration:write'");
    expect((await server.request(`${env}/session_recordings/nope/sharing/`)).status).toBe(404);
  });

  it('serves the pinned posthog-js files for the HTML snippet', async () => {
    for (const file of ['array.js', 'array.full.js', 'recorder.js', 'lazy-recorder.js', 'web-vitals.js']) {
      const res = await fetch(`${server.url}/static/${file}?v=1.434.18`, { headers: { origin: 'https://shop.example' } });
      expect(res.status, file).toBe(200);
      expect(res.headers.get('content-type')).toContain('javascript');
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      expect((await res.text()).length, file).toBeGreaterThan(0);
    }
    expect((await fetch(`${server.url}/static/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/static/nope.js`)).status).toBe(404);
  });
});

describe('recording changes in the activity log', () => {
  it('records sharing being enabled and disabled, and deletion', async () => {
    const server = await startTestServer();
    try {
      const token = server.bootstrap.team.apiToken;
      const sessionId = 'activity-session-1';
      const res = await fetch(`${server.url}/s/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          {
            event: '$snapshot',
            properties: {
              token,
              distinct_id: 'act-user',
              $session_id: sessionId,
              $window_id: 'w1',
              $snapshot_data: [{ type: 4, timestamp: Date.now(), data: { href: 'https://x.io/' } }],
            },
          },
        ]),
      });
      expect(res.status).toBe(200);
      const base = `/api/environments/${server.bootstrap.team.id}/session_recordings/${sessionId}`;
      expect((await server.request(`${base}/sharing/`, { method: 'PATCH', body: { enabled: true } })).status).toBe(200);
      expect((await server.request(`${base}/sharing/`, { method: 'PATCH', body: { enabled: false } })).status).toBe(200);
      expect((await server.request(`${base}/`, { method: 'DELETE' })).status).toBe(204);
      const rows = await server.running.ctx.database.db
        .selectFrom('activity_log')
        .select(['activity'])
        .where('scope', '=', 'Replay')
        .where('item_id', '=', sessionId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      expect(rows.map((r) => r.activity)).toEqual(['sharing enabled', 'sharing disabled', 'deleted']);
    } finally {
      await server.close();
    }
  });
});
