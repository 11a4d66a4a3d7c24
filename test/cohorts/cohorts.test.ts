import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { askFlags, cohortsPath, createFlag, createNestedCohort, personFilter, storePerson } from '../flags/flag-helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

const cohortFlag = (key: string, id: number, operator?: string) =>
  createFlag(server, {
    key,
    filters: {
      groups: [{ properties: [{ key: 'id', value: id, type: 'cohort', ...(operator ? { operator } : {}) }], rollout_percentage: 100 }],
    },
  });

async function flagsFor(distinctId: string, personProperties: Record<string, unknown> = {}) {
  return (await askFlags(server, '/decide/?v=3', { distinct_id: distinctId, person_properties: personProperties })).featureFlags;
}

describe('cohorts API', () => {
  it('creates, lists, retrieves, edits and soft-deletes a property cohort; DELETE is 405', async () => {
    const created = await server.request(cohortsPath(server), {
      method: 'POST',
      body: {
        name: 'Pros',
        description: 'paying',
        filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [personFilter('plan', 'pro')] }] } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Pros',
      description: 'paying',
      is_static: false,
      deleted: false,
      version: 1,
      // Calculated in the background once created, as PostHog's (cohort-calculation.test.ts).
      is_calculating: true,
    });
    expect(created.body.created_by.email).toBe(server.bootstrap.user.email);
    const id = created.body.id;
    const list = await server.request(cohortsPath(server));
    expect(list.body).toMatchObject({ count: 1, next: null, previous: null });
    expect((await server.request(cohortsPath(server, `${id}/`))).body.name).toBe('Pros');
    const renamed = await server.request(cohortsPath(server, `${id}/`), { method: 'PATCH', body: { name: 'Paying' } });
    expect(renamed.body.name).toBe('Paying');
    const del = await server.request(cohortsPath(server, `${id}/`), { method: 'DELETE' });
    expect(del.status).toBe(405);
    const soft = await server.request(cohortsPath(server, `${id}/`), { method: 'PATCH', body: { deleted: true } });
    expect(soft.body.deleted).toBe(true);
    expect((await server.request(cohortsPath(server))).body.count).toBe(0);
  });

  it('refuses filters without a property group', async () => {
    const res = await server.request(cohortsPath(server), { method: 'POST', body: { name: 'bad', filters: { nothing: true } } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: "Must contain a 'properties' key with type and values",
      attr: 'filters',
    });
  });
});

describe('cohorts in flags', () => {
  it('evaluates nested AND/OR groups with negation', async () => {
    const cohort = await createNestedCohort(server);
    await cohortFlag('nested-cohort', cohort.id);
    await cohortFlag('not-in-cohort', cohort.id, 'not_in');
    expect((await flagsFor('a', { plan: 'enterprise' }))['nested-cohort']).toBe(true);
    expect((await flagsFor('b', { country: 'DE', email: 'x@example.com' }))['nested-cohort']).toBe(true);
    expect((await flagsFor('c', { country: 'DE', email: 'x@test.io' }))['nested-cohort']).toBe(false);
    expect((await flagsFor('c', { country: 'DE', email: 'x@test.io' }))['not-in-cohort']).toBe(true);
    // Stored person properties count too.
    await storePerson(server, ['stored-enterprise'], { plan: 'enterprise' });
    expect((await flagsFor('stored-enterprise'))['nested-cohort']).toBe(true);
  });

  it('builds static cohorts from distinct ids and person uuids', async () => {
    await storePerson(server, ['member-1', 'member-1-alias']);
    await storePerson(server, ['member-2']);
    const third = await storePerson(server, ['member-3']);
    const created = await server.request(cohortsPath(server), {
      method: 'POST',
      body: { name: 'Beta testers', is_static: true, distinct_ids: ['member-1', 'member-2', 'not-a-person'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ is_static: true, count: 2, cohort_type: 'static' });
    await cohortFlag('static-cohort', created.body.id);
    expect((await flagsFor('member-1-alias'))['static-cohort']).toBe(true);
    expect((await flagsFor('member-2'))['static-cohort']).toBe(true);
    expect((await flagsFor('member-3'))['static-cohort']).toBe(false);
    expect((await flagsFor('stranger'))['static-cohort']).toBe(false);

    const added = await server.request(cohortsPath(server, `${created.body.id}/add_persons_to_static_cohort/`), {
      method: 'PATCH',
      // An unknown uuid is left out; a repeated one and an existing member count once.
      body: { person_ids: [third.uuid, '00000000-0000-4000-8000-00000000dead', third.uuid] },
    });
    expect(added.body).toEqual({ success: true });
    expect((await server.request(cohortsPath(server, `${created.body.id}/`))).body.count).toBe(3);
    expect((await flagsFor('member-3'))['static-cohort']).toBe(true);
  });

  it('takes a CSV upload of distinct ids', async () => {
    await storePerson(server, ['csv-1']);
    await storePerson(server, ['csv-2']);
    const form = new FormData();
    form.set('name', 'From CSV');
    form.set('is_static', 'true');
    form.set('csv', new Blob(['distinct_id,email\ncsv-1,a@x.io\n"csv-2",b@x.io\n'], { type: 'text/csv' }), 'people.csv');
    const response = await fetch(`${server.url}${cohortsPath(server)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}` },
      body: form,
    });
    const body = (await response.json()) as any;
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ name: 'From CSV', is_static: true, count: 2 });
    await cohortFlag('csv-cohort', body.id);
    expect((await flagsFor('csv-2'))['csv-cohort']).toBe(true);
  });

  it('fails only the flag whose cohort was deleted', async () => {
    const cohort = await server.request(cohortsPath(server), {
      method: 'POST',
      body: {
        name: 'Temporary',
        filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [personFilter('plan', 'pro')] }] } },
      },
    });
    await cohortFlag('doomed', cohort.body.id);
    await createFlag(server, { key: 'healthy' });
    await server.request(cohortsPath(server, `${cohort.body.id}/`), { method: 'PATCH', body: { deleted: true } });
    const body = await askFlags(server, '/flags/?v=2', { distinct_id: 'x', person_properties: { plan: 'pro' } });
    expect(body.errorsWhileComputingFlags).toBe(true);
    expect(body.flags.doomed).toMatchObject({ enabled: false, failed: true });
    expect(body.flags.healthy.enabled).toBe(true);
  });
});
