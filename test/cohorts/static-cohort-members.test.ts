import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { askFlags, cohortsPath, createFlag, personFilter, storePerson } from '../flags/flag-helpers.js';

const server = useTestServer();

const invalid = (detail: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr: null });

async function staticCohort(distinctIds: string[]) {
  const res = await server.request(cohortsPath(server), {
    method: 'POST',
    body: { name: 'Static', is_static: true, distinct_ids: distinctIds },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function propertyCohort() {
  const res = await server.request(cohortsPath(server), {
    method: 'POST',
    body: { name: 'Dynamic', filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [personFilter('plan', 'pro')] }] } } },
  });
  return res.body;
}

const act = (id: number, action: string, body: unknown) =>
  server.request(cohortsPath(server, `${id}/${action}/`), { method: 'PATCH', body });

const countOf = async (id: number) => (await server.request(cohortsPath(server, `${id}/`))).body.count;

describe('PATCH /cohorts/:id/remove_person_from_static_cohort/', () => {
  it('removes a member, answers {success: true}, and the flag stops matching them', async () => {
    const member = await storePerson(server, ['leaving']);
    await storePerson(server, ['staying']);
    const cohort = await staticCohort(['leaving', 'staying']);
    await createFlag(server, {
      key: 'static-members',
      filters: { groups: [{ properties: [{ key: 'id', value: cohort.id, type: 'cohort' }], rollout_percentage: 100 }] },
    });
    const res = await act(cohort.id, 'remove_person_from_static_cohort', { person_id: member.uuid.toUpperCase() });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await countOf(cohort.id)).toBe(1);
    const flags = await askFlags(server, '/flags/?v=2', { distinct_id: 'leaving' });
    expect(flags.flags['static-members'].enabled).toBe(false);
    // Removing someone who is not a member succeeds too.
    expect((await act(cohort.id, 'remove_person_from_static_cohort', { person_id: member.uuid })).body).toEqual({ success: true });
  });

  it('answers PostHog errors in its order', async () => {
    const cohort = await staticCohort([]);
    expect((await act(cohort.id, 'remove_person_from_static_cohort', {})).body).toEqual(invalid('person_id is required'));
    expect((await act(cohort.id, 'remove_person_from_static_cohort', { person_id: '' })).body).toEqual(invalid('person_id is required'));
    expect((await act(cohort.id, 'remove_person_from_static_cohort', { person_id: 5 })).body).toEqual(
      invalid('person_id must be a string'),
    );
    expect((await act(cohort.id, 'remove_person_from_static_cohort', { person_id: 'nope' })).body).toEqual(
      invalid('person_id must be a valid UUID'),
    );
    const missing = await act(cohort.id, 'remove_person_from_static_cohort', { person_id: '00000000-0000-4000-8000-00000000dead' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: "Person with this UUID does not exist in the cohort's team",
      attr: null,
    });
    const dynamic = await propertyCohort();
    expect((await act(dynamic.id, 'remove_person_from_static_cohort', { person_id: 'nope' })).body).toEqual(
      invalid('Can only remove users from static cohorts'),
    );
    expect((await act(999999, 'remove_person_from_static_cohort', {})).status).toBe(404);
  });
});

describe('PATCH /cohorts/:id/add_persons_to_static_cohort/', () => {
  it('adds known persons by uuid and answers {success: true}', async () => {
    const person = await storePerson(server, ['joining']);
    const cohort = await staticCohort([]);
    const res = await act(cohort.id, 'add_persons_to_static_cohort', { person_ids: [person.uuid, 'not-a-uuid'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await countOf(cohort.id)).toBe(1);
  });

  it('answers PostHog errors', async () => {
    const cohort = await staticCohort([]);
    expect((await act(cohort.id, 'add_persons_to_static_cohort', {})).body).toEqual(invalid('person_ids must be a list'));
    expect((await act(cohort.id, 'add_persons_to_static_cohort', { person_ids: [] })).body).toEqual(invalid('person_ids cannot be empty'));
    const tooMany = Array.from({ length: 1001 }, () => '00000000-0000-4000-8000-00000000dead');
    expect((await act(cohort.id, 'add_persons_to_static_cohort', { person_ids: tooMany })).body).toEqual(
      invalid('List size exceeds limit'),
    );
    expect((await act(cohort.id, 'add_persons_to_static_cohort', { person_ids: ['00000000-0000-4000-8000-00000000dead'] })).body).toEqual(
      invalid('No valid users to add to cohort'),
    );
    const dynamic = await propertyCohort();
    expect((await act(dynamic.id, 'add_persons_to_static_cohort', { person_ids: [] })).body).toEqual(
      invalid('Can only add users to static cohorts'),
    );
  });
});

describe('POST /cohorts/ with members', () => {
  it('refuses member ids that are not a list, as DRF ListField does', async () => {
    for (const [attr, value, type] of [
      ['distinct_ids', 'one', 'str'],
      ['person_ids', { id: 1 }, 'dict'],
      ['_create_static_person_ids', 7, 'int'],
    ] as const) {
      const res = await server.request(cohortsPath(server), { method: 'POST', body: { name: 'Static', is_static: true, [attr]: value } });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({
        type: 'validation_error',
        code: 'not_a_list',
        detail: `Expected a list of items but got type "${type}".`,
        attr,
      });
    }
  });
});
