/**
 * Group types are the project's, as in PostHog (GroupTypeMapping unique per project): a type first
 * seen in one environment has the same index in every environment of the project, served by each
 * one's groups_types and team body, and used by its flags; another project is independent.
 */
import { describe, expect, it } from 'vitest';
import { createProject } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const server = useTestServer();

interface Env {
  id: number;
  token: string;
}

const typesOf = (body: any[]) => body.map((t) => [t.group_type, t.group_type_index]);

async function createEnvironment(name: string): Promise<Env> {
  const res = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, { method: 'POST', body: { name } });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id, token: res.body.api_token };
}

/** Sends `events` to /batch/ with the environment's key and waits until the worker has processed them. */
async function ingest(env: Env, events: unknown[]): Promise<void> {
  const res = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: env.token, batch: events } });
  expect(res.status, res.text).toBe(200);
  await server.settle();
}

const identify = (type: string, key: string) => ({
  event: '$groupidentify',
  distinct_id: 'someone',
  properties: { $group_type: type, $group_key: key, $group_set: { name: key } },
});

async function groupTypes(path: string) {
  const res = await server.request(`${path}/groups_types/`);
  expect(res.status, res.text).toBe(200);
  return typesOf(res.body);
}

async function flags(env: Env, body: Record<string, unknown>) {
  const res = await server.request('/flags/?v=2', { method: 'POST', key: null, body: { api_key: env.token, ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('group types per project', () => {
  let a: Env;
  let b: Env;

  it('gives a type first seen in one environment the same index in the others', async () => {
    a = { id: server.bootstrap.team.id, token: server.token };
    b = await createEnvironment('Staging');
    await ingest(a, [identify('company', 'acme')]);
    await ingest(b, [identify('org', 'o1')]);
    await ingest(b, [{ event: 'used', distinct_id: 'someone', properties: { $groups: { company: 'acme', org: 'o1' } } }]);
    const expected = [
      ['company', 0],
      ['org', 1],
    ];
    for (const path of [`/api/environments/${a.id}`, `/api/environments/${b.id}`, `/api/projects/${server.bootstrap.project.id}`]) {
      expect(await groupTypes(path), path).toEqual(expected);
    }
    for (const env of [a, b]) {
      const body = await server.request(`/api/environments/${env.id}/`);
      expect(typesOf(body.body.group_types)).toEqual(expected);
      expect(body.body.has_group_types).toBe(true);
    }
    // B's group of its own type is stored under the project's index.
    const orgs = await server.request(`/api/environments/${b.id}/groups/?group_type_index=1`);
    expect(orgs.body.results.map((g: any) => g.group_key)).toEqual(['o1']);
  });

  it('evaluates a flag in an environment on a type first seen in another one', async () => {
    const project = server.bootstrap.project.id;
    const flag = await server.request(`/api/projects/${project}/feature_flags/`, {
      method: 'POST',
      body: { key: 'venues', filters: { aggregation_group_type_index: 2, groups: [{ properties: [], rollout_percentage: 100 }] } },
    });
    expect(flag.status, flag.text).toBe(201);
    // B's flags hold its mapping without index 2, then the type arrives through A.
    expect((await flags(b, { distinct_id: 'u', groups: { venue: 'hall' } })).flags.venues.enabled).toBe(false);
    await ingest(a, [identify('venue', 'hall')]);
    await waitFor(() => flags(b, { distinct_id: 'u', groups: { venue: 'hall' } }), {
      what: "B's flag on the venue type to be enabled",
      until: (answer) => answer.flags.venues.enabled === true,
    });
    const local = await server.request(`/api/projects/${project}/feature_flags/local_evaluation/?token=${b.token}`);
    expect(local.status, local.text).toBe(200);
    expect(local.body.group_type_mapping).toEqual({ '0': 'company', '1': 'org', '2': 'venue' });
  });

  it('gives an environment created afterwards the project’s types', async () => {
    const c = await createEnvironment('Later');
    expect(await groupTypes(`/api/environments/${c.id}`)).toEqual([
      ['company', 0],
      ['org', 1],
      ['venue', 2],
    ]);
    // A type new to the project, first seen in the new environment, reaches the older ones.
    await ingest(c, [identify('team', 't1')]);
    for (const env of [a, b, c]) expect((await groupTypes(`/api/environments/${env.id}`)).at(-1)).toEqual(['team', 3]);
  });

  it('keeps another project apart', async () => {
    const { team } = await createProject(server.running.ctx.database, server.bootstrap.organization.id);
    await ingest({ id: team.id, token: team.apiToken }, [identify('org', 'elsewhere')]);
    expect(await groupTypes(`/api/environments/${team.id}`)).toEqual([['org', 0]]);
    expect((await groupTypes(`/api/environments/${a.id}`)).map(([type]) => type)).toEqual(['company', 'org', 'venue', 'team']);
  });
});
