import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { askFlags, cohortsPath, createFlag, flagsPath, personFilter } from '../flags/flag-helpers.js';
import { PERFORMED_PAGEVIEW } from '../helpers/cohort-filters.js';

const server = useTestServer();

const behavioural = PERFORMED_PAGEVIEW;
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

describe('cohort filter kinds (PostHog refuses what its filter union cannot place)', () => {
  const refusal = (detail: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr: 'filters' });
  const post = (filters: unknown) => server.request(cohortsPath(server), { method: 'POST', body: { name: 'kinds', filters } });
  // PostHog answers `str(exc.errors())`, pydantic's own list, when no missing key explains the refusal.
  const unknownKind =
    "[{'type': 'union_tag_invalid', 'loc': ('properties', 'values', 0, 'AND', 'values', 0), 'msg': \"Input tag 'nonsense' found using 'type' does not match any of the expected tags: 'behavioral', 'cohort', 'person', 'person_metadata', 'AND', 'OR'\", 'input': {'type': 'nonsense', 'key': 'plan', 'value': 'pro', 'operator': 'exact'}, 'ctx': {'discriminator': \"'type'\", 'tag': 'nonsense', 'expected_tags': \"'behavioral', 'cohort', 'person', 'person_metadata', 'AND', 'OR'\"}, 'url': 'https://errors.pydantic.dev/2.10/v/union_tag_invalid'}]";

  it("refuses a filter of an unknown type on create, with pydantic's error list", async () => {
    const res = await post(propertiesOf({ type: 'nonsense', key: 'plan', value: 'pro', operator: 'exact' }));
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual(refusal(unknownKind));
  });

  it('refuses a filter without a type, and names every misplaced member, groups of an unknown type too', async () => {
    const untyped = await post(propertiesOf({ key: 'plan', value: 'pro', operator: 'exact' }));
    expect(untyped.body).toEqual(
      refusal(
        "[{'type': 'union_tag_not_found', 'loc': ('properties', 'values', 0, 'AND', 'values', 0), 'msg': \"Unable to extract tag using discriminator 'type'\", 'input': {'key': 'plan', 'value': 'pro', 'operator': 'exact'}, 'ctx': {'discriminator': \"'type'\"}, 'url': 'https://errors.pydantic.dev/2.10/v/union_tag_not_found'}]",
      ),
    );

    const two = await post({
      properties: {
        type: 'OR',
        values: [
          { type: 'XOR', values: [personFilter('plan', 'pro')] },
          { type: 'AND', values: [{ type: 'event', key: '$browser', value: "it's" }] },
        ],
      },
    });
    expect(two.status).toBe(400);
    expect(two.body.detail).toBe(
      "[{'type': 'union_tag_invalid', 'loc': ('properties', 'values', 0), 'msg': \"Input tag 'XOR' found using 'type' does not match any of the expected tags: 'behavioral', 'cohort', 'person', 'person_metadata', 'AND', 'OR'\", 'input': {'type': 'XOR', 'values': [{'key': 'plan', 'value': 'pro', 'operator': 'exact', 'type': 'person'}]}, 'ctx': {'discriminator': \"'type'\", 'tag': 'XOR', 'expected_tags': \"'behavioral', 'cohort', 'person', 'person_metadata', 'AND', 'OR'\"}, 'url': 'https://errors.pydantic.dev/2.10/v/union_tag_invalid'}, {'type': 'union_tag_invalid', 'loc': ('properties', 'values', 1, 'AND', 'values', 0), 'msg': \"Input tag 'event' found using 'type' does not match any of the expected tags: 'behavioral', 'cohort', 'person', 'person_metadata', 'AND', 'OR'\", 'input': {'type': 'event', 'key': '$browser', 'value': \"it's\"}, 'ctx': {'discriminator': \"'type'\", 'tag': 'event', 'expected_tags': \"'behavioral', 'cohort', 'person', 'person_metadata', 'AND', 'OR'\"}, 'url': 'https://errors.pydantic.dev/2.10/v/union_tag_invalid'}]",
    );

    const nullType = await post(propertiesOf({ type: null, key: 'plan' }));
    expect(nullType.body.detail).toContain("'msg': \"Input tag 'None' found using 'type'");
  });

  it('names a missing key before an unknown type, as PostHog does', async () => {
    const res = await post(propertiesOf({ type: 'nonsense' }, { key: 'plan', type: 'person', value: 'pro' }));
    expect(res.body).toEqual(refusal('Missing required keys for person filter: operator'));
  });

  it('refuses an unknown type on PATCH and keeps the stored filters', async () => {
    const cohort = await createCohort('Kept', propertiesOf(personFilter('plan', 'pro')));
    const res = await patchCohort(cohort.id, { filters: propertiesOf({ type: 'nonsense', key: 'plan', value: 'pro', operator: 'exact' }) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refusal(unknownKind));
    expect((await server.request(cohortsPath(server, `${cohort.id}/`))).body.filters).toEqual(propertiesOf(personFilter('plan', 'pro')));
  });

  // PostHog's PersonFilter takes any operator ("accept any legacy operator") and any value, so an
  // unknown operator or a between without a two-value range is stored, there as here.
  const accepted = propertiesOf(
    personFilter('age', [18, 65], 'between'),
    personFilter('age', [18, 65], 'not_between'),
    { key: 'created_at', type: 'person_metadata', value: '2024-01-01', operator: 'is_date_after' },
    personFilter('plan', 'pro', 'bogus'),
    personFilter('age', 18, 'between'),
    personFilter('age', [1, 2, 3], 'not_between'),
  );

  it('accepts known kinds, ranges, and the operators and values PostHog does not check, on create and PATCH', async () => {
    const created = await createCohort('Ranges', accepted);
    expect(created.filters).toEqual(accepted);
    const cohort = await createCohort('Later ranges', propertiesOf(personFilter('plan', 'pro')));
    const res = await patchCohort(cohort.id, { filters: accepted });
    expect(res.status, res.text).toBe(200);
    expect(res.body.filters).toEqual(accepted);
  });
});
