import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { askFlags, cohortsPath, createFlag, flagsPath, personFilter } from '../flags/flag-helpers.js';

const server = useTestServer();

const behavioural = {
  key: '$pageview',
  type: 'behavioral',
  value: 'performed_event',
  event_type: 'events',
  time_value: 30,
  time_interval: 'day',
};
const propertiesOf = (...values: unknown[]) => ({ properties: { type: 'OR', values: [{ type: 'AND', values }] } });

async function createCohort(name: string, filters: unknown) {
  const res = await server.request(cohortsPath(server), { method: 'POST', body: { name, filters } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const patchCohort = (id: number, body: unknown, method = 'PATCH') => server.request(cohortsPath(server, `${id}/`), { method, body });

const cohortFlag = (key: string, cohortId: number) =>
  createFlag(server, {
    key,
    filters: { groups: [{ properties: [{ key: 'id', value: cohortId, type: 'cohort' }], rollout_percentage: 100 }] },
  });

async function enabledFor(key: string, personProperties: Record<string, unknown>) {
  const body = await askFlags(server, '/flags/?v=2', { distinct_id: `user-${key}`, person_properties: personProperties });
  return body.flags[key]?.enabled;
}

describe('behavioural filters on cohorts that flags use (CohortSerializer._validate_feature_flag_constraints)', () => {
  it('refuses a PATCH adding an event filter to a cohort an active flag uses (the flag keeps matching), not a PUT or an unused cohort', async () => {
    const cohort = await createCohort('Paying', propertiesOf(personFilter('plan', 'pro')));
    await cohortFlag('paying-only', cohort.id);
    expect(await enabledFor('paying-only', { plan: 'pro' })).toBe(true);

    const res = await patchCohort(cohort.id, { filters: propertiesOf(personFilter('plan', 'pro'), behavioural) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'behavioral_cohort_found',
      detail: 'Behavioral filters cannot be added to cohorts used in feature flags.',
      attr: 'filters',
    });
    expect((await server.request(cohortsPath(server, `${cohort.id}/`))).body.filters).toEqual(propertiesOf(personFilter('plan', 'pro')));
    expect(await enabledFor('paying-only', { plan: 'pro' })).toBe(true);

    // Not guarded: cohorts no active flag uses, and PUT (PostHog checks PATCH only).
    const unused = await createCohort('Unused', propertiesOf(personFilter('plan', 'pro')));
    expect((await patchCohort(unused.id, { filters: propertiesOf(behavioural) })).status).toBe(200);
    const disabledUse = await createCohort('Behind a disabled flag', propertiesOf(personFilter('plan', 'pro')));
    const flag = await cohortFlag('disabled-user', disabledUse.id);
    await server.request(flagsPath(server, `${flag.id}/`), { method: 'PATCH', body: { active: false } });
    expect((await patchCohort(disabledUse.id, { filters: propertiesOf(behavioural) })).status).toBe(200);
    expect((await patchCohort(cohort.id, { name: 'Paying', filters: propertiesOf(behavioural) }, 'PUT')).status).toBe(200);
  });

  it('also guards a cohort reached through another cohort, and names an event-based dependency', async () => {
    const inner = await createCohort('Inner', propertiesOf(personFilter('country', 'DE')));
    const outer = await createCohort('Outer', propertiesOf({ key: 'id', value: inner.id, type: 'cohort' }));
    await cohortFlag('via-outer', outer.id);
    const direct = await patchCohort(inner.id, { filters: propertiesOf(behavioural) });
    expect(direct.status).toBe(400);
    expect(direct.body.code).toBe('behavioral_cohort_found');

    const doers = await createCohort('Doers', propertiesOf(behavioural));
    const res = await patchCohort(outer.id, { filters: propertiesOf({ key: 'id', value: doers.id, type: 'cohort' }) });
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'behavioral_cohort_found',
      detail: "A cohort dependency (Doers) has filters based on events. These cohorts can't be used in feature flags.",
      attr: 'filters',
    });
  });
});

describe('cohort filter shape (PostHog names missing keys)', () => {
  const cases: Array<[string, unknown, string]> = [
    ['person filter without operator', { key: 'plan', type: 'person', value: 'pro' }, 'Missing required keys for person filter: operator'],
    ['person filter without value', { key: 'plan', type: 'person', operator: 'exact' }, 'Missing required keys for person filter: value'],
    [
      'person filter with neither',
      { key: 'plan', type: 'person', value: null },
      'Missing required keys for person filter: value, operator',
    ],
    ['person filter without key', { type: 'person', value: 'pro', operator: 'exact' }, 'Missing required keys for person filter: key'],
    [
      'behavioural filter without event_type',
      { key: '$pageview', type: 'behavioral', value: 'performed_event' },
      'Missing required keys for behavioral filter: event_type',
    ],
    ['cohort filter without value', { key: 'id', type: 'cohort' }, 'Missing required keys for cohort filter: value'],
  ];

  it.each(cases)('refuses a %s', async (_name, filter, detail) => {
    const res = await server.request(cohortsPath(server), { method: 'POST', body: { name: 'bad', filters: propertiesOf(filter) } });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail, attr: 'filters' });
  });

  it('asks is_set for no value', async () => {
    const accepted = await server.request(cohortsPath(server), {
      method: 'POST',
      body: { name: 'has email', filters: propertiesOf({ key: 'email', type: 'person', operator: 'is_set' }) },
    });
    expect(accepted.status, accepted.text).toBe(201);
    const refused = await server.request(cohortsPath(server), {
      method: 'POST',
      body: { name: 'no operator', filters: propertiesOf({ key: 'email', type: 'person' }) },
    });
    expect(refused.body.detail).toBe('Missing required keys for person filter: value, operator');
  });
});
