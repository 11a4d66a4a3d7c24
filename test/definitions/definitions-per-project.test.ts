/**
 * Event and property definitions are the project's (PostHog's `project_id` on its definitions):
 * two environments of one project share one list, through `/api/projects/:id/` and
 * `/api/environments/:id/` of either; another project sees none of it. Fed by real capture
 * (posthog-node and HTTP /batch/), on both backends.
 */
import { PostHog } from 'posthog-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { createProject } from '../helpers/fixtures.js';

const server = useTestServer();
let projectId = 0;
let env1 = 0;
let env2 = { id: 0, api_token: '' };
let other = { projectId: 0, teamId: 0 };

type List = { body: { count: number; results: Array<{ id: string; name: string } & Record<string, any>> } };
const names = (res: List) => res.body.results.map((r) => r.name).sort();
/** The properties the test sent (the SDKs add their own `$lib`, `$ip`…). */
const own = (res: List) => names(res).filter((name) => !name.startsWith('$'));
const byName = (res: List, name: string) => res.body.results.find((r) => r.name === name)!;

async function batch(apiKey: string, events: unknown[]): Promise<void> {
  const res = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: apiKey, batch: events } });
  expect(res.status).toBe(200);
  await server.settle();
}

beforeAll(async () => {
  projectId = server.bootstrap.project.id;
  env1 = server.bootstrap.team.id;
  const created = await server.request(`/api/projects/${projectId}/environments/`, { method: 'POST', body: { name: 'Staging' } });
  expect(created.status).toBe(201);
  env2 = created.body;
  const elsewhere = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Elsewhere');
  other = { projectId: elsewhere.project.id, teamId: elsewhere.team.id };

  // The primary environment first (it makes the shared rows), then the second one.
  const posthog = new PostHog(server.token, { host: server.url, flushAt: 1, flushInterval: 0 });
  posthog.capture({ distinctId: 'p1', event: 'shared', properties: { plan: 'pro' } });
  posthog.capture({ distinctId: 'p1', event: 'only in one', properties: { one_prop: 1 } });
  await posthog.shutdown();
  await server.settle();
  await batch(env2.api_token, [
    { event: 'shared', distinct_id: 's1', properties: { plan: 'free', seats: 3 } },
    { event: 'only in two', distinct_id: 's1', properties: { two_prop: true } },
  ]);
  const otherToken = (
    await server.running.ctx.database.db.selectFrom('teams').select('api_token').where('id', '=', other.teamId).executeTakeFirstOrThrow()
  ).api_token;
  await batch(otherToken, [{ event: 'elsewhere', distinct_id: 'o1', properties: { other_prop: 'x' } }]);
});

describe('definitions per project', () => {
  it('lists the union of the environments through either route base, one row per name', async () => {
    const viaProject = await server.request<List['body']>(`/api/projects/${projectId}/event_definitions/`);
    const viaEnv2 = await server.request<List['body']>(`/api/environments/${env2.id}/event_definitions/`);
    const viaEnv1 = await server.request<List['body']>(`/api/environments/${env1}/event_definitions/`);
    for (const res of [viaProject, viaEnv1, viaEnv2]) {
      expect(res.status).toBe(200);
      expect(names(res)).toEqual(['only in one', 'only in two', 'shared']);
      expect(res.body.count).toBe(3);
    }
    expect(byName(viaEnv2, 'shared').id).toBe(byName(viaProject, 'shared').id);
    // The volume counts the project's events: one `shared` in each environment.
    expect(byName(viaEnv2, 'shared').volume_30_day).toBe(2);
    expect(byName(viaProject, 'only in two').volume_30_day).toBe(1);

    const props = await server.request<List['body']>(`/api/environments/${env2.id}/property_definitions/?type=event`);
    expect(own(props)).toEqual(['one_prop', 'plan', 'seats', 'two_prop']);
    const viaProjectProps = await server.request<List['body']>(`/api/projects/${projectId}/property_definitions/?type=event`);
    expect(names(viaProjectProps)).toEqual(names(props));

    // One row per name in the table, made by the environment that first saw it.
    const { db } = server.running.ctx.database;
    const rows = await db.selectFrom('event_definitions').select(['name', 'team_id', 'project_id']).where('name', '=', 'shared').execute();
    expect(rows.map((r) => [Number(r.team_id), Number(r.project_id)])).toEqual([[env1, projectId]]);
    const plan = await db.selectFrom('property_definitions').select(['team_id']).where('name', '=', 'plan').execute();
    expect(plan.map((r) => Number(r.team_id))).toEqual([env1]);
  });

  it("sees the other environment's events in is_seen_on_filtered_events", async () => {
    const res = await server.request<List['body']>(
      `/api/projects/${projectId}/property_definitions/?type=event&event_names=${encodeURIComponent('["only in two"]')}`,
    );
    expect(byName(res, 'two_prop').is_seen_on_filtered_events).toBe(true);
    expect(byName(res, 'one_prop').is_seen_on_filtered_events).toBe(false);
    const only = await server.request<List['body']>(
      `/api/environments/${env1}/property_definitions/?type=event&filter_by_event_names=true&event_names=${encodeURIComponent('["shared"]')}`,
    );
    expect(own(only)).toEqual(['plan', 'seats']);
  });

  it('a PATCH through one base is seen through the other', async () => {
    const list = await server.request<List['body']>(`/api/projects/${projectId}/event_definitions/?search=shared`);
    const id = byName(list, 'shared').id;
    const patched = await server.request(`/api/environments/${env2.id}/event_definitions/${id}/`, {
      method: 'PATCH',
      body: { description: 'In both', tags: ['core'] },
    });
    expect(patched.status).toBe(200);
    const read = await server.request(`/api/projects/${projectId}/event_definitions/${id}/`);
    expect(read.body).toMatchObject({ name: 'shared', description: 'In both', tags: ['core'], volume_30_day: 2 });

    const props = await server.request<List['body']>(`/api/environments/${env2.id}/property_definitions/?type=event&search=seats`);
    const propId = byName(props, 'seats').id;
    const patchedProp = await server.request(`/api/projects/${projectId}/property_definitions/${propId}/`, {
      method: 'PATCH',
      body: { description: 'How many' },
    });
    expect(patchedProp.status).toBe(200);
    const readProp = await server.request(`/api/environments/${env2.id}/property_definitions/${propId}/`);
    expect(readProp.body).toMatchObject({ name: 'seats', description: 'How many', property_type: 'Numeric' });
  });

  it('another project sees only its own', async () => {
    const res = await server.request<List['body']>(`/api/projects/${other.projectId}/event_definitions/`);
    expect(names(res)).toEqual(['elsewhere']);
    const props = await server.request<List['body']>(`/api/environments/${other.teamId}/property_definitions/?type=event`);
    expect(own(props)).toEqual(['other_prop']);
    const ours = await server.request<List['body']>(`/api/projects/${projectId}/event_definitions/?search=shared`);
    const id = byName(ours, 'shared').id;
    expect((await server.request(`/api/projects/${other.projectId}/event_definitions/${id}/`)).status).toBe(404);
    const patch = await server.request(`/api/environments/${other.teamId}/event_definitions/${id}/`, {
      method: 'PATCH',
      body: { description: 'not yours' },
    });
    expect(patch.status).toBe(404);
    const theirs = await server.request<List['body']>(`/api/projects/${other.projectId}/event_definitions/`);
    expect(byName(theirs, 'elsewhere').volume_30_day).toBe(1);
  });

  it('counts the events of an environment created after the volumes were read', async () => {
    const volume = async (base: string) => {
      const res = await server.request<List['body']>(`${base}/event_definitions/?search=shared`);
      expect(res.status).toBe(200);
      return byName(res, 'shared').volume_30_day;
    };
    expect(await volume(`/api/projects/${projectId}`)).toBe(2);
    const created = await server.request(`/api/projects/${projectId}/environments/`, { method: 'POST', body: { name: 'Preview' } });
    expect(created.status).toBe(201);
    await batch(created.body.api_token, [{ event: 'shared', distinct_id: 'n1' }]);
    expect(await volume(`/api/projects/${projectId}`)).toBe(3);
    expect(await volume(`/api/environments/${created.body.id}`)).toBe(3);
  });

  it('keeps the definitions when an environment of the project is deleted', async () => {
    const deleted = await server.request(`/api/environments/${env2.id}/`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    const res = await server.request<List['body']>(`/api/projects/${projectId}/event_definitions/`);
    expect(names(res)).toEqual(['only in one', 'only in two', 'shared']);
    const props = await server.request<List['body']>(`/api/projects/${projectId}/property_definitions/?type=event`);
    expect(own(props)).toEqual(['one_prop', 'plan', 'seats', 'two_prop']);
    // The rows the deleted environment made now name the environment left.
    const { db } = server.running.ctx.database;
    for (const table of ['event_definitions', 'property_definitions', 'event_properties'] as const) {
      const left = await db.selectFrom(table).select('team_id').where('team_id', '=', env2.id).execute();
      expect(left, table).toEqual([]);
    }
    const made = await db.selectFrom('event_definitions').select('team_id').where('name', '=', 'only in two').executeTakeFirstOrThrow();
    expect(Number(made.team_id)).toBe(env1);
  });
});
