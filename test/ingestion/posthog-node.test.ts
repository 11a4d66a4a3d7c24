import { PostHog } from 'posthog-node';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

function client() {
  // flushAt 1000 with a manual flush: the requests are real gzip batches of several events.
  return new PostHog(server.token, { host: server.url, flushAt: 1000, flushInterval: 0, fetchRetryCount: 0 });
}

const env = () => `/api/environments/${server.bootstrap.team.id}`;

describe('posthog-node against Hoglet', () => {
  it('captures events in gzip batches, readable through the events API', async () => {
    const ph = client();
    for (let i = 0; i < 25; i++) {
      ph.capture({ distinctId: 'node-user-1', event: 'order placed', properties: { order: i, plan: i % 2 ? 'pro' : 'free' } });
    }
    await ph.flush();
    await ph.shutdown();
    await server.settle();

    const res = await server.request(`${env()}/events/?event=order%20placed&distinct_id=node-user-1&limit=100&include_person=true`);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(25);
    expect(res.body.results.map((e: any) => e.properties.order).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 25 }, (_, i) => i),
    );
    const first = res.body.results[0];
    expect(first.properties.$lib).toBe('posthog-node');
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.person.distinct_ids).toEqual(['node-user-1']);

    const pro = await server.request(
      `${env()}/events/?event=order%20placed&properties=${encodeURIComponent(JSON.stringify([{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }]))}`,
    );
    expect(pro.body.results).toHaveLength(12);
    const big = await server.request(
      `${env()}/events/?properties=${encodeURIComponent(JSON.stringify([{ key: 'order', value: 20, operator: 'gt' }]))}`,
    );
    expect(big.body.results.map((e: any) => e.properties.order).sort()).toEqual([21, 22, 23, 24]);
  });

  it('identifies, aliases and merges persons', async () => {
    const ph = client();
    ph.capture({
      distinctId: 'anon-123',
      event: '$pageview',
      properties: { $current_url: 'https://example.com/a', $set_once: { first_seen_plan: 'free' } },
    });
    await ph.flush();
    ph.capture({
      distinctId: 'user@example.com',
      event: '$identify',
      properties: { $anon_distinct_id: 'anon-123', $set: { email: 'user@example.com', name: 'Ada' } },
    });
    ph.alias({ distinctId: 'user@example.com', alias: 'crm-42' });
    ph.identify({ distinctId: 'user@example.com', properties: { plan: 'enterprise' } });
    await ph.flush();
    await ph.shutdown();
    await server.settle();

    const persons = await server.request(`${env()}/persons/?distinct_id=anon-123`);
    expect(persons.body.count).toBe(1);
    const person = persons.body.results[0];
    expect(new Set(person.distinct_ids)).toEqual(new Set(['anon-123', 'user@example.com', 'crm-42']));
    expect(person.properties).toMatchObject({ email: 'user@example.com', name: 'Ada', plan: 'enterprise', first_seen_plan: 'free' });
    expect(person.properties.$initial_current_url).toBe('https://example.com/a');
    expect(person.is_identified).toBe(true);
    expect(person.name).toBe('user@example.com');

    const byId = await server.request(`${env()}/persons/${person.id}/`);
    expect(byId.body.uuid).toBe(person.uuid);
    const byUuid = await server.request(`${env()}/persons/${person.uuid}/`);
    expect(byUuid.body.id).toBe(person.id);
    const search = await server.request(`${env()}/persons/?search=ADA`);
    expect(search.body.results.map((p: any) => p.id)).toContain(person.id);

    // Every event of every distinct id now belongs to the one person.
    const events = await server.request(`${env()}/events/?person_id=${person.uuid}`);
    expect(events.body.results.length).toBeGreaterThanOrEqual(1);
  });

  it('creates groups with groupIdentify and attaches events to them', async () => {
    const ph = client();
    ph.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme Inc', seats: 40 } });
    ph.capture({ distinctId: 'member-1', event: 'report viewed', groups: { company: 'acme', project: 'p-9' } });
    await ph.flush();
    await ph.shutdown();
    await server.settle();

    const types = await server.request(`${env()}/groups_types/`);
    expect(types.body.map((t: any) => [t.group_type, t.group_type_index])).toEqual([
      ['company', 0],
      ['project', 1],
    ]);
    const groups = await server.request(`${env()}/groups/?group_type_index=0`);
    expect(groups.body.results).toHaveLength(1);
    expect(groups.body.results[0]).toMatchObject({ group_key: 'acme', group_properties: { name: 'Acme Inc', seats: 40 } });
    // $groups attaches without creating the group.
    expect((await server.request(`${env()}/groups/?group_type_index=1`)).body.count).toBe(0);
    const found = await server.request(`${env()}/groups/find/?group_type_index=0&group_key=acme`);
    expect(found.body.group_properties.name).toBe('Acme Inc');

    const events = await server.request(`${env()}/events/?event=report%20viewed`);
    expect(events.body.results[0].properties).toMatchObject({ $group_0: 'acme', $group_1: 'p-9' });
  });

  it('marks the environment as having ingested events', async () => {
    const project = await server.request(`/api/projects/${server.bootstrap.team.id}/`);
    expect(project.body.ingested_event).toBe(true);
  });
});
