/**
 * GET …/persons/cohorts/?person_id= (PostHog's PersonViewSet `cohorts`): the live cohorts the
 * person is in, `{results: [{id, name, count}]}` and the state of each one's calculation. Static
 * cohorts by their members; dynamic ones by their property definition against the person's stored
 * properties, as flags judge them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';
import { useTestServer } from '../helpers/server.js';
import { claimCalculation } from '../../src/cohorts/store.js';
import { personsPath, seedPerson, type SeededPerson } from './person-fixtures.js';

const server = useTestServer();
const cohortsPath = () => `/api/projects/${server.bootstrap.project.id}/cohorts/`;

let pro: SeededPerson;
let free: SeededPerson;
const ids: Record<string, number> = {};

async function createCohort(name: string, body: Record<string, unknown>): Promise<number> {
  const res = await server.request(cohortsPath(), { method: 'POST', body: { name, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const propertyCohort = (values: unknown[], type: 'AND' | 'OR' = 'AND') => ({
  filters: { properties: { type: 'OR', values: [{ type, values }] } },
});

beforeAll(async () => {
  pro = await seedPerson(server, { distinctIds: ['cohort-pro'], properties: { plan: 'pro', email: 'pro@example.com' } });
  free = await seedPerson(server, { distinctIds: ['cohort-free'], properties: { plan: 'free' } });
  ids.paying = await createCohort(
    'Paying',
    propertyCohort([{ key: 'plan', type: 'person', operator: 'exact', value: ['pro', 'enterprise'] }]),
  );
  ids.listed = await createCohort('Listed', { is_static: true, _create_static_person_ids: [pro.uuid] });
  ids.nested = await createCohort(
    'Paying with email',
    propertyCohort([
      { key: 'id', type: 'cohort', value: ids.paying },
      { key: 'email', type: 'person', operator: 'is_set' },
    ]),
  );
  ids.freeOnly = await createCohort('Free', propertyCohort([{ key: 'plan', type: 'person', operator: 'exact', value: 'free' }]));
  ids.gone = await createCohort('Deleted paying', propertyCohort([{ key: 'plan', type: 'person', operator: 'exact', value: 'pro' }]));
  expect((await server.request(`${cohortsPath()}${ids.gone}/`, { method: 'PATCH', body: { deleted: true } })).status).toBe(200);
  ids.behavioural = await createCohort(
    'Did sign up',
    propertyCohort([
      { key: 'signed up', type: 'behavioral', value: 'performed_event', event_type: 'events', time_value: 30, time_interval: 'day' },
    ]),
  );
});

const cohortsOf = (ref: string | number, key?: string) =>
  server.request(personsPath(server, `cohorts/?person_id=${encodeURIComponent(String(ref))}`), key ? { key } : {});

describe("a person's cohorts", () => {
  it('lists the live cohorts the person is in, static and by properties (nested too), as {id, name, count}', async () => {
    const res = await cohortsOf(pro.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((c: any) => c.id)).toEqual([ids.paying, ids.listed, ids.nested]);
    expect(res.body.results[1]).toEqual({ id: ids.listed, name: 'Listed', count: 1, is_calculating: false, errors_calculating: 0 });
    expect(Object.keys(res.body.results[0]).sort()).toEqual(['count', 'errors_calculating', 'id', 'is_calculating', 'name']);
  });

  it("says of each cohort whether it is being calculated and how often its calculation failed, as the cohort's own page does", async () => {
    // Another process holds the cohort's calculation, so it stays "calculating" while this test reads.
    const { db } = server.running.ctx.database;
    const nested = ids.nested!;
    await waitFor(() => claimCalculation(db, nested, 'another-process', new Date(), 10 * 60_000), {
      what: 'a claim on the cohort once no calculator holds it',
      until: (claimed) => claimed !== undefined,
    });
    await db.updateTable('cohorts').set({ errors_calculating: 2 }).where('id', '=', nested).execute();
    const own = (await server.request(`${cohortsPath()}${ids.nested}/`)).body;
    const listed = (await cohortsOf(pro.id)).body.results.find((c: any) => c.id === ids.nested);
    expect(listed).toEqual({ id: ids.nested, name: own.name, count: own.count, is_calculating: true, errors_calculating: 2 });
  });

  it('judges each person by its own properties, and finds the person by uuid too', async () => {
    const res = await cohortsOf(free.uuid);
    expect(res.status).toBe(200);
    expect(res.body.results.map((c: any) => c.name)).toEqual(['Free']);
  });

  it('says what is missing, answers 404 for no such person, and needs cohort:read besides person:read', async () => {
    const missing = await server.request(personsPath(server, 'cohorts/'));
    expect({ status: missing.status, attr: missing.body.attr }).toEqual({ status: 400, attr: 'person_id' });
    expect((await cohortsOf('0198a2b3-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await cohortsOf('someone')).status).toBe(404);
    const key = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['person:read']);
    const refused = await cohortsOf(pro.id, key);
    expect({ status: refused.status, detail: refused.body.detail }).toEqual({
      status: 403,
      detail: "API key missing required scope 'cohort:read'",
    });
  });
});
