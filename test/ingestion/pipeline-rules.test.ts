import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
beforeAll(async () => {
  // Trust the proxy so X-Forwarded-For names the client; a low spike limit to see deferral.
  server = await startTestServer({ TRUST_PROXY: 'true', INGESTION_SPIKE_EVENTS_PER_SECOND: '20' });
  token = server.bootstrap.team.apiToken;
});
afterAll(async () => {
  await server?.close();
});

const env = () => `/api/environments/${server.bootstrap.team.id}`;

async function batch(events: unknown[], extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ api_key: token, batch: events, ...extra }),
  });
  expect(res.status).toBe(200);
}

describe('ingestion pipeline rules', () => {
  it('takes $ip from the first X-Forwarded-For entry and enriches events and persons with GeoIP', async () => {
    await batch([{ event: 'located', properties: { distinct_id: 'geo-1' } }], {}, { 'x-forwarded-for': '81.2.69.142, 10.0.0.1' });
    await batch(
      [{ event: 'not located', properties: { distinct_id: 'geo-2', $geoip_disable: true } }],
      {},
      { 'x-forwarded-for': '81.2.69.142' },
    );
    await server.settle();
    const located = (await server.request(`${env()}/events/?event=located`)).body.results[0];
    expect(located.properties.$ip).toBe('81.2.69.142');
    expect(located.properties.$geoip_country_code).toBe('GB');
    expect(typeof located.properties.$geoip_country_name).toBe('string');
    const person = (await server.request(`${env()}/persons/?distinct_id=geo-1`)).body.results[0];
    expect(person.properties.$geoip_country_code).toBe('GB');
    expect(person.properties.$initial_geoip_country_code).toBe('GB');
    const plain = (await server.request(`${env()}/events/?event=not%20located`)).body.results[0];
    expect(plain.properties.$geoip_country_code).toBeUndefined();
  });

  it('refuses to merge two identified persons without $merge_dangerously, and merges with it', async () => {
    await batch([
      { event: '$identify', properties: { distinct_id: 'alice', $anon_distinct_id: 'anon-a', $set: { name: 'Alice' } } },
      { event: '$identify', properties: { distinct_id: 'bob', $anon_distinct_id: 'anon-b', $set: { name: 'Bob' } } },
    ]);
    await server.settle();
    // After both are identified: on PostgreSQL alice's and bob's events may sit in different queue
    // partitions, which keep each distinct id's order, not the order between them.
    await batch([{ event: '$create_alias', properties: { distinct_id: 'alice', alias: 'bob' } }]);
    await server.settle();
    const alice = (await server.request(`${env()}/persons/?distinct_id=alice`)).body.results[0];
    const bob = (await server.request(`${env()}/persons/?distinct_id=bob`)).body.results[0];
    expect(alice.id).not.toBe(bob.id);
    const warnings = (await server.request(`${env()}/ingestion_warnings/`)).body.results.map((w: any) => w.type);
    expect(warnings).toContain('cannot_merge_already_identified');

    await batch([{ event: '$merge_dangerously', properties: { distinct_id: 'alice', alias: 'bob' } }]);
    await server.settle();
    const merged = (await server.request(`${env()}/persons/?distinct_id=bob`)).body.results[0];
    expect(new Set(merged.distinct_ids)).toEqual(new Set(['alice', 'anon-a', 'bob', 'anon-b']));
    expect(merged.properties.name).toBe('Alice');
    expect((await server.request(`${env()}/persons/${bob.uuid}/`)).status).toBe(404);
  });

  it('applies $set_once only once and $unset removes', async () => {
    await batch([{ event: 'e', properties: { distinct_id: 'once', $set_once: { first: 1 }, $set: { plan: 'a', tmp: 1 } } }]);
    await server.settle();
    await batch([{ event: 'e', properties: { distinct_id: 'once', $set_once: { first: 2 }, $unset: ['tmp'] } }]);
    await server.settle();
    const person = (await server.request(`${env()}/persons/?distinct_id=once`)).body.results[0];
    expect(person.properties).toMatchObject({ first: 1, plan: 'a' });
    expect(person.properties.tmp).toBeUndefined();
  });

  it('processes historical_migration batches in their own lane, in order', async () => {
    const events = Array.from({ length: 30 }, (_, i) => ({
      event: 'imported',
      timestamp: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
      properties: { distinct_id: 'importer', $set: { step: i } },
    }));
    await batch(events, { historical_migration: true });
    await server.settle();
    const imported = (await server.request(`${env()}/events/?event=imported&limit=100`)).body.results;
    expect(imported).toHaveLength(30);
    expect(imported[0].timestamp).toBe('2024-01-01T00:29:00+00:00');
    const person = (await server.request(`${env()}/persons/?distinct_id=importer`)).body.results[0];
    expect(person.properties.step).toBe(29);
  });

  it('stores a bursting distinct id at once but defers its person updates, with one warning', async () => {
    const burst = Array.from({ length: 200 }, (_, i) => ({ event: 'burst', properties: { distinct_id: 'hot', $set: { n: i } } }));
    await batch(burst);
    await server.settle();
    const events = (await server.request(`${env()}/events/?event=burst&limit=1000`)).body.results;
    expect(events).toHaveLength(200);
    const warnings = (await server.request(`${env()}/ingestion_warnings/`)).body.results;
    const deferred = warnings.find((w: any) => w.type === 'person_processing_deferred');
    expect(deferred.count).toBe(1);
    expect(deferred.warnings[0].details.distinctId).toBe('hot');
    // The deferred updates still land, in order.
    const person = (await server.request(`${env()}/persons/?distinct_id=hot`)).body.results[0];
    expect(person.properties.n).toBe(199);
  });

  it('defers nothing for a burst of events without a person step (personless, $exception): no deferral warning', async () => {
    const personless = Array.from({ length: 100 }, (_, i) => ({
      event: 'quiet burst',
      properties: { distinct_id: 'hot-personless', $process_person_profile: false, n: i },
    }));
    const exceptions = Array.from({ length: 100 }, (_, i) => ({
      event: '$exception',
      properties: { distinct_id: 'hot-exceptions', n: i },
    }));
    await batch([...personless, ...exceptions]);
    await server.settle();
    expect((await server.request(`${env()}/events/?distinct_id=hot-personless&limit=1000`)).body.results).toHaveLength(100);
    expect((await server.request(`${env()}/events/?distinct_id=hot-exceptions&limit=1000`)).body.results).toHaveLength(100);
    const warnings = (await server.request(`${env()}/ingestion_warnings/`)).body.results;
    const deferredIds = (warnings.find((w: any) => w.type === 'person_processing_deferred')?.warnings ?? []).map(
      (w: any) => w.details.distinctId,
    );
    expect(deferredIds).not.toContain('hot-personless');
    expect(deferredIds).not.toContain('hot-exceptions');
  });

  it('deletes a person, and with delete_events its events', async () => {
    await batch([
      { event: 'doomed', properties: { distinct_id: 'gone-1' } },
      { event: 'doomed', properties: { distinct_id: 'gone-2' } },
    ]);
    await server.settle();
    const first = (await server.request(`${env()}/persons/?distinct_id=gone-1`)).body.results[0];
    const second = (await server.request(`${env()}/persons/?distinct_id=gone-2`)).body.results[0];
    expect((await server.request(`${env()}/persons/${first.id}/`, { method: 'DELETE' })).status).toBe(202);
    expect((await server.request(`${env()}/persons/${second.uuid}/?delete_events=true`, { method: 'DELETE' })).status).toBe(202);
    // The events go in the background (deletions/runner.ts): run it to the end.
    await server.running.deletions!.drain();
    expect((await server.request(`${env()}/persons/?distinct_id=gone-1`)).body.count).toBe(0);
    expect((await server.request(`${env()}/events/?distinct_id=gone-1`)).body.results).toHaveLength(1);
    expect((await server.request(`${env()}/events/?distinct_id=gone-2`)).body.results).toHaveLength(0);
  });

  it('assigns at most five group types', async () => {
    const types = ['t0', 't1', 't2', 't3', 't4', 't5', 't6'];
    await batch(types.map((t) => ({ event: '$groupidentify', properties: { distinct_id: 'g', $group_type: t, $group_key: 'k' } })));
    await server.settle();
    const mapped = (await server.request(`${env()}/groups_types/`)).body.map((t: any) => t.group_type);
    expect(mapped).toEqual(['t0', 't1', 't2', 't3', 't4']);
    const warnings = (await server.request(`${env()}/ingestion_warnings/`)).body.results.map((w: any) => w.type);
    expect(warnings).toContain('group_type_limit_reached');
  });

  it('stores $feature_flag_called and $feature/<key> properties, queryable by them', async () => {
    await batch([
      { event: '$feature_flag_called', properties: { distinct_id: 'ff', $feature_flag: 'beta', $feature_flag_response: 'test' } },
      { event: 'checkout', properties: { distinct_id: 'ff', '$feature/beta': 'test' } },
      { event: '$pageview', properties: { distinct_id: 'ff', $current_url: 'https://x.io/a' } },
      { event: 'survey sent', properties: { distinct_id: 'ff', $survey_id: 's1', $survey_response: 'yes' } },
    ]);
    await server.settle();
    const q = (filters: unknown) => server.request(`${env()}/events/?properties=${encodeURIComponent(JSON.stringify(filters))}`);
    expect((await q([{ key: '$feature_flag', value: 'beta' }])).body.results.map((e: any) => e.event)).toEqual(['$feature_flag_called']);
    expect((await q([{ key: '$feature/beta', value: 'test' }])).body.results.map((e: any) => e.event)).toEqual(['checkout']);
    expect((await q([{ key: '$survey_response', value: 'yes' }])).body.results.map((e: any) => e.event)).toEqual(['survey sent']);
    expect((await q([{ key: '$current_url', value: 'x.io/a', operator: 'icontains' }])).body.results.map((e: any) => e.event)).toEqual([
      '$pageview',
    ]);
  });

  it('finds events by property keys holding quotes, backslashes, dots and brackets', async () => {
    const keys = ['say "hi"', 'back\\slash', 'a.b', 'list[0]', '$x'];
    await batch(keys.map((key, i) => ({ event: `odd key ${i}`, properties: { distinct_id: 'keys', [key]: `v${i}`, n: i } })));
    await server.settle();
    const q = (filters: unknown) => server.request(`${env()}/events/?properties=${encodeURIComponent(JSON.stringify(filters))}`);
    for (const [i, key] of keys.entries()) {
      expect(
        (await q([{ key, value: `v${i}` }])).body.results.map((e: any) => e.event),
        key,
      ).toEqual([`odd key ${i}`]);
      expect(
        (await q([{ key, operator: 'is_set' }])).body.results.map((e: any) => e.event),
        key,
      ).toEqual([`odd key ${i}`]);
    }
  });
});
