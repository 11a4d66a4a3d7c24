/**
 * GET /cohorts/:id/persons/ (PostHog's CohortViewSet `persons` action): a static cohort's member
 * list; a dynamic cohort's members judged now from the persons' stored properties, as flags judge
 * them; paging with limit/offset and `count`; both scopes required.
 */
import { describe, expect, it } from 'vitest';
import { createKey } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { cohortsPath, personFilter, storePerson } from '../flags/flag-helpers.js';

const server = useTestServer();

const members = async (id: number, query = '') => {
  const res = await server.request(cohortsPath(server, `${id}/persons/${query}`));
  expect(res.status, res.text).toBe(200);
  return res.body as { count: number; next: string | null; results: { distinct_ids: string[]; properties: Record<string, unknown> }[] };
};
const ids = (body: { results: { distinct_ids: string[] }[] }) => body.results.map((p) => p.distinct_ids[0]).sort();

describe('GET /cohorts/:id/persons/', () => {
  it("lists a dynamic cohort's members by their properties (AND/OR groups), paged", async () => {
    await storePerson(server, ['pro-1'], { plan: 'pro', country: 'FR' });
    await storePerson(server, ['pro-2'], { plan: 'pro', country: 'DE' });
    await storePerson(server, ['free-1'], { plan: 'free', country: 'FR' });
    await storePerson(server, ['vip-1'], { plan: 'free', vip: true });
    const created = await server.request(cohortsPath(server), {
      method: 'POST',
      body: {
        name: 'French pros or VIPs',
        filters: {
          properties: {
            type: 'OR',
            values: [
              { type: 'AND', values: [personFilter('plan', 'pro'), personFilter('country', 'FR')] },
              { type: 'AND', values: [{ key: 'vip', type: 'person', operator: 'is_set', value: 'is_set' }] },
            ],
          },
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const all = await members(created.body.id);
    expect(all.count).toBe(2);
    expect(ids(all)).toEqual(['pro-1', 'vip-1']);
    const first = await members(created.body.id, '?limit=1');
    expect(first.results).toHaveLength(1);
    expect(first.count).toBe(2);
    expect(first.next).toContain('offset=1');
    const second = await members(created.body.id, '?limit=1&offset=1');
    expect([...ids(first), ...ids(second)].sort()).toEqual(['pro-1', 'vip-1']);
  });

  it("lists a static cohort's members", async () => {
    await storePerson(server, ['listed-1'], { email: 'a@example.com' });
    await storePerson(server, ['listed-2']);
    await storePerson(server, ['unlisted']);
    const created = await server.request(cohortsPath(server), {
      method: 'POST',
      body: { name: 'Listed', is_static: true, distinct_ids: ['listed-1', 'listed-2', 'nobody'] },
    });
    expect(created.status, created.text).toBe(201);
    const body = await members(created.body.id);
    expect(body.count).toBe(2);
    expect(ids(body)).toEqual(['listed-1', 'listed-2']);
  });

  it('answers 404 for an unknown cohort and needs cohort:read and person:read', async () => {
    expect((await server.request(cohortsPath(server, '999999/persons/'))).status).toBe(404);
    const created = await server.request(cohortsPath(server), { method: 'POST', body: { name: 'Scoped', is_static: true } });
    const { database } = server.running.ctx;
    const cohortOnly = await createKey(database, server.bootstrap.user.id, ['cohort:read']);
    expect((await server.request(cohortsPath(server, `${created.body.id}/persons/`), { key: cohortOnly })).status).toBe(403);
    const both = await createKey(database, server.bootstrap.user.id, ['cohort:read', 'person:read']);
    expect((await server.request(cohortsPath(server, `${created.body.id}/persons/`), { key: both })).status).toBe(200);
  });
});
