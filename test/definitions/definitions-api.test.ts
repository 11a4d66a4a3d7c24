import { PostHog } from 'posthog-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { createKey, createProject } from '../helpers/fixtures.js';

// event_definitions/ and property_definitions/ as PostHog serves them, fed by ingestion.
const server = useTestServer();
const project = () => `/api/projects/${server.bootstrap.team.id}`;
let otherTeamId = 0;

const names = (res: { body: { results: Array<{ name: string }> } }) => res.body.results.map((r) => r.name);
const byName = (res: { body: { results: Array<{ name: string }> } }, name: string) => res.body.results.find((r) => r.name === name) as any;

beforeAll(async () => {
  const posthog = new PostHog(server.token, { host: server.url, flushAt: 1, flushInterval: 0 });
  posthog.capture({ distinctId: 'node-1', event: 'node signed up', properties: { source: 'node', seats: 3 } });
  await posthog.shutdown();
  const now = Date.now();
  await server.ingest([
    {
      event: '$pageview',
      distinct_id: 'u1',
      timestamp: new Date(now - 1000).toISOString(),
      properties: { $current_url: 'https://a.test/' },
    },
    { event: '$pageview', distinct_id: 'u2', properties: { $current_url: 'https://a.test/b', $pathname: '/b' } },
    {
      event: 'purchase',
      distinct_id: 'u1',
      properties: { amount: 12.5, paid: true, coupon: 'X1', bought_at: '2026-01-02T03:04:05Z', utm_source: 7, $set: { plan: 'pro' } },
    },
    { event: '$groupidentify', distinct_id: 'u1', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 10 } } },
    // A later value of another type does not change the type first seen.
    { event: 'purchase', distinct_id: 'u2', properties: { amount: 'lots' } },
  ]);
  const other = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Other');
  otherTeamId = other.team.id;
  const res = await server.request('/batch/', {
    method: 'POST',
    key: null,
    body: { api_key: other.team.apiToken, batch: [{ event: 'secret event', distinct_id: 'z', properties: { secret_prop: 1 } }] },
  });
  expect(res.status).toBe(200);
  await server.settle();
});

describe('event definitions', () => {
  it('lists the events ingested, with last seen and 30-day volume', async () => {
    const res = await server.request(`${project()}/event_definitions/`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(names(res).sort()).toEqual(['$groupidentify', '$pageview', 'node signed up', 'purchase']);
    const pageview = byName(res, '$pageview');
    expect(pageview.volume_30_day).toBe(2);
    expect(byName(res, 'purchase').volume_30_day).toBe(2);
    expect(pageview.last_seen_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    expect(pageview).toMatchObject({ description: null, tags: [], is_action: false });
  });

  it('searches by every term and pages', async () => {
    expect(names(await server.request(`${project()}/event_definitions/?search=PURCH`))).toEqual(['purchase']);
    expect(names(await server.request(`${project()}/event_definitions/?search=signed%20node`))).toEqual(['node signed up']);
    expect(names(await server.request(`${project()}/event_definitions/?event_type=event_custom`)).sort()).toEqual([
      'node signed up',
      'purchase',
    ]);
    const page = await server.request(`${project()}/event_definitions/?limit=1&offset=1`);
    expect(page.body).toMatchObject({ count: 4 });
    expect(page.body.results).toHaveLength(1);
    expect(page.body.next).toContain('offset=2');
  });

  it('reads and edits one definition', async () => {
    const list = await server.request(`${project()}/event_definitions/?search=purchase`);
    const id = list.body.results[0].id;
    const patched = await server.request(`${project()}/event_definitions/${id}/`, {
      method: 'PATCH',
      body: { description: 'A sale', tags: ['Revenue', 'revenue '] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'purchase', description: 'A sale', tags: ['revenue'] });
    expect((await server.request(`${project()}/event_definitions/${id}/`)).body.description).toBe('A sale');
    const bad = await server.request(`${project()}/event_definitions/${id}/`, { method: 'PATCH', body: { tags: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', attr: 'tags' });
  });

  it('refuses a bad event_type', async () => {
    const res = await server.request(`${project()}/event_definitions/?event_type=actions`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'event_type' });
  });
});

describe('property definitions', () => {
  it('lists event properties with their inferred types', async () => {
    const res = await server.request(`${project()}/property_definitions/`);
    expect(res.status).toBe(200);
    const type = (name: string) => byName(res, name)?.property_type;
    expect(type('amount')).toBe('Numeric');
    expect(byName(res, 'amount').is_numerical).toBe(true);
    expect(type('paid')).toBe('Boolean');
    expect(type('coupon')).toBe('String');
    expect(type('bought_at')).toBe('DateTime');
    expect(type('utm_source')).toBe('String');
    expect(type('seats')).toBe('Numeric');
    // Ingestion's own keys are never listed.
    expect(names(res)).not.toContain('$set');
    expect(names(res)).not.toContain('plan');
    expect(names(res)).not.toContain('secret_prop');
    expect(byName(res, 'amount').is_seen_on_filtered_events).toBeNull();
  });

  it('lists person and group properties by type', async () => {
    const person = await server.request(`${project()}/property_definitions/?type=person`);
    expect(names(person)).toContain('plan');
    expect(names(person)).not.toContain('amount');
    const group = await server.request(`${project()}/property_definitions/?type=group&group_type_index=0`);
    expect(names(group)).toEqual(['seats']);
    expect(names(await server.request(`${project()}/property_definitions/?type=group&group_type_index=1`))).toEqual([]);
  });

  it('marks and filters the properties seen on the given events', async () => {
    const q = encodeURIComponent(JSON.stringify(['purchase']));
    const res = await server.request(`${project()}/property_definitions/?event_names=${q}`);
    expect(res.status).toBe(200);
    // Those seen on the events first.
    expect(res.body.results[0].is_seen_on_filtered_events).toBe(true);
    expect(byName(res, 'amount').is_seen_on_filtered_events).toBe(true);
    expect(byName(res, 'source').is_seen_on_filtered_events).toBe(false);
    const only = await server.request(`${project()}/property_definitions/?event_names=${q}&filter_by_event_names=true`);
    expect(names(only).sort()).toEqual(['$ip', 'amount', 'bought_at', 'coupon', 'paid', 'utm_source']);
  });

  it('searches, filters numerical ones and names', async () => {
    expect(names(await server.request(`${project()}/property_definitions/?search=oup`))).toEqual(['coupon']);
    expect(names(await server.request(`${project()}/property_definitions/?is_numerical=true`)).sort()).toEqual(['amount', 'seats']);
    expect(names(await server.request(`${project()}/property_definitions/?properties=paid,coupon`)).sort()).toEqual(['coupon', 'paid']);
    const excluded = encodeURIComponent(JSON.stringify(['amount']));
    expect(names(await server.request(`${project()}/property_definitions/?excluded_properties=${excluded}`))).not.toContain('amount');
  });

  it('answers 400 for bad parameters', async () => {
    for (const query of ['type=cohort', 'type=group', 'type=group&group_type_index=x', 'event_names=notjson', 'event_names=%5B1%5D']) {
      const res = await server.request(`${project()}/property_definitions/?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.type).toBe('validation_error');
    }
  });

  it('reads and edits one definition', async () => {
    const id = byName(await server.request(`${project()}/property_definitions/?search=amount`), 'amount').id;
    const patched = await server.request(`${project()}/property_definitions/${id}/`, {
      method: 'PATCH',
      body: { description: 'Paid sum' },
    });
    expect(patched.body).toMatchObject({ name: 'amount', description: 'Paid sum', property_type: 'Numeric' });
    expect((await server.request(`${project()}/property_definitions/not-a-uuid/`)).status).toBe(404);
  });
});

describe('confinement', () => {
  it('never shows another project its definitions', async () => {
    const mine = await server.request(`${project()}/event_definitions/?limit=100`);
    expect(names(mine)).not.toContain('secret event');
    const theirs = await server.request(`/api/projects/${otherTeamId}/event_definitions/`);
    expect(names(theirs)).toEqual(['secret event']);
    const theirId = theirs.body.results[0].id;
    expect((await server.request(`${project()}/event_definitions/${theirId}/`)).status).toBe(404);
    const patch = await server.request(`${project()}/event_definitions/${theirId}/`, { method: 'PATCH', body: { description: 'x' } });
    expect(patch.status).toBe(404);
  });

  it('asks for the definition scopes', async () => {
    const { database } = server.running.ctx;
    const readOnly = await createKey(database, server.bootstrap.user.id, ['event_definition:read', 'property_definition:read']);
    expect((await server.request(`${project()}/event_definitions/`, { key: readOnly })).status).toBe(200);
    expect((await server.request(`${project()}/property_definitions/`, { key: readOnly })).status).toBe(200);
    const id = (await server.request(`${project()}/event_definitions/`)).body.results[0].id;
    const denied = await server.request(`${project()}/event_definitions/${id}/`, {
      key: readOnly,
      method: 'PATCH',
      body: { description: 'y' },
    });
    expect(denied.status).toBe(403);
    const other = await createKey(database, server.bootstrap.user.id, ['insight:read']);
    expect((await server.request(`${project()}/property_definitions/`, { key: other })).status).toBe(403);
  });
});
