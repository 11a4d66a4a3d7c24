import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { cohortsPath, createFlag, flagsPath, patchFlag, personFilter } from './flag-helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

const patch = (id: number, body: unknown) => patchFlag(server, id, body);

describe('flag management API', () => {
  it('creates a flag at version 1 in PostHog shape', async () => {
    const flag = await createFlag(server, {
      key: 'beta-search',
      name: 'Beta search',
      filters: { groups: [{ properties: [personFilter('plan', 'pro')], rollout_percentage: 50 }] },
    });
    expect(flag).toMatchObject({
      key: 'beta-search',
      name: 'Beta search',
      version: 1,
      active: true,
      deleted: false,
      status: 'ACTIVE',
      ensure_experience_continuity: false,
      evaluation_runtime: 'all',
      experiment_set: [],
      tags: [],
    });
    expect(flag.created_by.email).toBe(server.bootstrap.user.email);
    expect(flag.filters.groups[0].rollout_percentage).toBe(50);
    expect(typeof flag.id).toBe('number');
  });

  it('shows a flag created without filters as one condition for everyone', async () => {
    const flag = await createFlag(server, { key: 'no-filters' });
    expect(flag.filters).toEqual({ groups: [{ properties: [], rollout_percentage: null }] });
  });

  it('retrieves a flag, 404 for unknown ids', async () => {
    const flag = await createFlag(server, { key: 'retrievable' });
    const res = await server.request(flagsPath(server, `${flag.id}/`));
    expect(res.status).toBe(200);
    expect(res.body.key).toBe('retrievable');
    const missing = await server.request(flagsPath(server, '999999/'));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
  });

  it('lists newest first with active, search and type filters and pagination', async () => {
    await createFlag(server, { key: 'list-inactive', active: false });
    await createFlag(server, {
      key: 'list-multi',
      name: 'Checkout layout',
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'a', rollout_percentage: 50 },
            { key: 'b', rollout_percentage: 50 },
          ],
        },
      },
    });
    const all = await server.request(flagsPath(server));
    expect(all.status).toBe(200);
    expect(all.body.results[0].key).toBe('list-multi');
    expect(all.body.count).toBe(all.body.results.length);

    const inactive = await server.request(flagsPath(server, '?active=false'));
    expect(inactive.body.results.map((f: any) => f.key)).toEqual(['list-inactive']);
    const active = await server.request(flagsPath(server, '?active=true'));
    expect(active.body.results.map((f: any) => f.key)).not.toContain('list-inactive');

    const search = await server.request(flagsPath(server, '?search=CHECKOUT'));
    expect(search.body.results.map((f: any) => f.key)).toEqual(['list-multi']);
    const multi = await server.request(flagsPath(server, '?type=multivariant'));
    expect(multi.body.results.map((f: any) => f.key)).toEqual(['list-multi']);
    const boolean = await server.request(flagsPath(server, '?type=boolean'));
    expect(boolean.body.results.map((f: any) => f.key)).not.toContain('list-multi');

    const page = await server.request(flagsPath(server, '?limit=1'));
    expect(page.body.results).toHaveLength(1);
    expect(page.body.next).toContain('limit=1&offset=1');
  });

  it('bumps the version on every edit', async () => {
    const flag = await createFlag(server, { key: 'versioned' });
    const first = await patch(flag.id, { name: 'one', version: 1 });
    expect(first.status).toBe(200);
    expect(first.body.version).toBe(2);
    const second = await patch(flag.id, { key: 'versioned-renamed' });
    expect(second.body).toMatchObject({ version: 3, key: 'versioned-renamed', name: 'one' });
  });

  it('keeps stored filters when a PATCH sends filters without groups', async () => {
    const flag = await createFlag(server, { key: 'keep-filters', filters: { groups: [{ properties: [], rollout_percentage: 30 }] } });
    const res = await patch(flag.id, { filters: { payloads: {} } });
    expect(res.status).toBe(200);
    expect(res.body.filters.groups[0].rollout_percentage).toBe(30);
  });

  it('answers DELETE with 405 and soft-deletes with PATCH deleted', async () => {
    const flag = await createFlag(server, { key: 'to-delete' });
    const del = await server.request(flagsPath(server, `${flag.id}/`), { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.body).toEqual({
      type: 'invalid_request',
      code: 'method_not_allowed',
      detail: 'Method "DELETE" not allowed.',
      attr: null,
    });
    const soft = await patch(flag.id, { deleted: true });
    expect(soft.status).toBe(200);
    expect(soft.body).toMatchObject({ deleted: true, status: 'DELETED' });
    const list = await server.request(flagsPath(server));
    expect(list.body.results.map((f: any) => f.key)).not.toContain('to-delete');
    expect((await server.request(flagsPath(server, `${flag.id}/`))).body.deleted).toBe(true);
    // The key is free again.
    const again = await createFlag(server, { key: 'to-delete' });
    expect(again.id).not.toBe(flag.id);
  });

  it('refuses a stale edit that conflicts with a newer one (409)', async () => {
    const flag = await createFlag(server, { key: 'contested', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    const original = { filters: flag.filters };
    const theirs = await patch(flag.id, { version: 1, filters: { groups: [{ properties: [], rollout_percentage: 20 }] } });
    expect(theirs.body.version).toBe(2);
    const mine = await patch(flag.id, {
      version: 1,
      original_flag: original,
      filters: { groups: [{ properties: [], rollout_percentage: 30 }] },
    });
    expect(mine.status).toBe(409);
    expect(mine.body).toEqual({
      type: 'server_error',
      code: 'conflict',
      detail: `The feature flag was updated by ${server.bootstrap.user.email} since you started editing it. Please refresh and try again.`,
      attr: null,
    });
    // An edit of an untouched field goes through despite the old version.
    const name = await patch(flag.id, { version: 1, original_flag: { name: '' }, name: 'renamed' });
    expect(name.status).toBe(200);
    expect(name.body.version).toBe(3);
  });
});

describe('flag validation (PostHog messages)', () => {
  const boolGroup = { properties: [], rollout_percentage: 100 };
  const cases: Array<[string, Record<string, unknown>, string, string | null, string]> = [
    ['missing key', { name: 'x' }, 'This field is required.', 'key', 'required'],
    ['bad key', { key: 'has space' }, 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key'],
    ['long key', { key: 'k'.repeat(401) }, 'Ensure this field has no more than 400 characters.', 'key', 'max_length'],
    [
      'no condition set',
      { key: 'v-empty', filters: { groups: [] } },
      'Feature flags must have at least one condition set (group).',
      'filters',
      'invalid_input',
    ],
    ['filters not a dict', { key: 'v-list', filters: [] }, 'Expected a dictionary of items but got type "list".', 'filters', 'not_a_dict'],
    ['active not boolean', { key: 'v-active', active: 'maybe' }, 'Must be a valid boolean.', 'active', 'invalid_input'],
    [
      'group property on a person flag',
      { key: 'v-group', filters: { groups: [{ properties: [{ key: 'tier', value: 'a', type: 'group', group_type_index: 0 }] }] } },
      'Filters are not valid (can only use person, cohort, and flag properties)',
      'filters',
      'invalid_input',
    ],
    [
      'person property on a group flag',
      { key: 'v-group2', filters: { aggregation_group_type_index: 0, groups: [{ properties: [personFilter('a', 'b')] }] } },
      'Filters are not valid (can only use group properties)',
      'filters',
      'invalid_input',
    ],
    [
      'variants not summing to 100',
      {
        key: 'v-sum',
        filters: {
          groups: [boolGroup],
          multivariate: {
            variants: [
              { key: 'a', rollout_percentage: 60 },
              { key: 'b', rollout_percentage: 30 },
            ],
          },
        },
      },
      'Invalid variant definitions: Variant rollout percentages must sum to 100.',
      'filters',
      'invalid_input',
    ],
    [
      'unknown variant override',
      {
        key: 'v-override',
        filters: { groups: [{ ...boolGroup, variant: 'nope' }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } },
      },
      'Filters are not valid (variant override does not exist)',
      'filters',
      'invalid_input',
    ],
    [
      'payload key on a boolean flag',
      { key: 'v-payload', filters: { groups: [boolGroup], payloads: { false: '1' } } },
      "Payload keys must be 'true' for boolean flags",
      'filters',
      'invalid_input',
    ],
    [
      'payload key that is no variant',
      {
        key: 'v-payload2',
        filters: { groups: [boolGroup], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] }, payloads: { b: '1' } },
      },
      'Payload keys must match a variant key for multivariate flags',
      'filters',
      'invalid_input',
    ],
    [
      'payload not JSON',
      { key: 'v-payload3', filters: { groups: [boolGroup], payloads: { true: '{nope' } } },
      'Payload value is not valid JSON',
      'filters',
      'invalid_input',
    ],
    [
      'payloads not a dict',
      { key: 'v-payload4', filters: { groups: [boolGroup], payloads: ['x'] } },
      'Payloads must be passed as a dictionary',
      'filters',
      'invalid_input',
    ],
    [
      'numeric value for gt',
      { key: 'v-gt', filters: { groups: [{ properties: [personFilter('age', 5, 'gt')] }] } },
      'Invalid value for operator gt: 5',
      'filters',
      'invalid_value',
    ],
    [
      'list value for icontains',
      { key: 'v-icontains', filters: { groups: [{ properties: [personFilter('email', ['a', 'b'], 'icontains')] }] } },
      "Invalid value for operator icontains: ['a', 'b']",
      'filters',
      'invalid_value',
    ],
    [
      'in on a person property',
      { key: 'v-in', filters: { groups: [{ properties: [personFilter('plan', ['a'], 'in')] }] } },
      "The 'in' operator is only valid for cohort properties, not 'person' properties.",
      'filters',
      'invalid_operator',
    ],
    [
      'unreadable date',
      { key: 'v-date', filters: { groups: [{ properties: [personFilter('signup', 'not a date', 'is_date_before')] }] } },
      'Invalid date value: not a date',
      'filters',
      'invalid_date',
    ],
    [
      'missing cohort',
      { key: 'v-cohort', filters: { groups: [{ properties: [{ key: 'id', value: 987654, type: 'cohort' }] }] } },
      'Cohort with id 987654 does not exist',
      'filters',
      'cohort_does_not_exist',
    ],
    [
      'too many values',
      {
        key: 'v-many',
        filters: {
          groups: [
            {
              properties: [
                personFilter(
                  'id',
                  Array.from({ length: 1001 }, (_, i) => String(i)),
                ),
              ],
            },
          ],
        },
      },
      'Property group expressions of type id cannot contain more than 1000 values.',
      'filters',
      'invalid_input',
    ],
    [
      'flag property without flag_evaluates_to',
      { key: 'v-flagop', filters: { groups: [{ properties: [{ key: '1', value: true, type: 'flag', operator: 'exact' }] }] } },
      "Flag properties must use the 'flag_evaluates_to' operator",
      'filters',
      'invalid_input',
    ],
    [
      'flag dependency by key',
      {
        key: 'v-flagkey',
        filters: { groups: [{ properties: [{ key: 'abc', value: true, type: 'flag', operator: 'flag_evaluates_to' }] }] },
      },
      "Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: 'abc'",
      'filters',
      'invalid_input',
    ],
    [
      'flag dependency on a missing flag',
      {
        key: 'v-flagmissing',
        filters: { groups: [{ properties: [{ key: '987654', value: true, type: 'flag', operator: 'flag_evaluates_to' }] }] },
      },
      'Flag dependency references non-existent flag with ID 987654',
      'filters',
      'invalid_input',
    ],
  ];

  it.each(cases)('refuses %s', async (_name, body, detail, attr, code) => {
    const res = await server.request(flagsPath(server), { method: 'POST', body });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ type: 'validation_error', code, detail, attr });
  });

  it('refuses a duplicate key among live flags', async () => {
    await createFlag(server, { key: 'unique-key' });
    const res = await server.request(flagsPath(server), { method: 'POST', body: { key: 'unique-key' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'unique',
      detail: 'There is already a feature flag with this key.',
      attr: 'key',
    });
  });

  it('accepts variant weights that sum to 100 in floating point, and stores object payloads as JSON text', async () => {
    const flag = await createFlag(server, {
      key: 'thirds',
      filters: {
        groups: [boolGroup],
        multivariate: {
          variants: [
            { key: 'a', rollout_percentage: 33.33 },
            { key: 'b', rollout_percentage: 33.33 },
            { key: 'c', rollout_percentage: 33.34 },
          ],
        },
        payloads: { a: { cta: 'hi' } },
      },
    });
    expect(flag.filters.payloads).toEqual({ a: '{"cta":"hi"}' });
  });

  it('checks flag dependencies: disabled target, itself, cycles, and dependents on delete or disable', async () => {
    const dep = (id: number) => ({
      groups: [{ properties: [{ key: String(id), value: true, type: 'flag', operator: 'flag_evaluates_to' }] }],
    });
    const off = await createFlag(server, { key: 'dep-off', active: false });
    const disabled = await server.request(flagsPath(server), { method: 'POST', body: { key: 'dep-on-off', filters: dep(off.id) } });
    expect(disabled.body.detail).toBe(
      `Cannot create dependency on disabled flag 'dep-off' (ID: ${off.id}). Flag dependencies must reference active flags only.`,
    );

    const a = await createFlag(server, { key: 'dep-a' });
    const b = await createFlag(server, { key: 'dep-b', filters: dep(a.id) });
    const self = await patch(a.id, { filters: dep(a.id) });
    expect(self.body).toMatchObject({ detail: "Feature flag 'dep-a' cannot depend on itself", attr: 'filters' });
    const cycle = await patch(a.id, { filters: dep(b.id) });
    expect(cycle.status).toBe(400);
    expect(cycle.body).toMatchObject({ detail: 'Circular dependency detected: dep-a → dep-b → dep-a', attr: 'filters' });

    const remove = await patch(a.id, { deleted: true });
    expect(remove.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: `Cannot delete this feature flag because other flags depend on it: dep-b (ID: ${b.id}). Please update or delete the dependent flags first.`,
      attr: null,
    });
    const disable = await patch(a.id, { active: false });
    expect(disable.body.detail).toBe(
      `Cannot disable this feature flag because other flags depend on it: dep-b (ID: ${b.id}). Please update or disable the dependent flags first.`,
    );
  });

  it('annotates cohort filters with the cohort name', async () => {
    const cohort = await server.request(cohortsPath(server), {
      method: 'POST',
      body: { name: 'Pros', filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [personFilter('plan', 'pro')] }] } } },
    });
    expect(cohort.status).toBe(201);
    const flag = await createFlag(server, {
      key: 'cohort-named',
      filters: { groups: [{ properties: [{ key: 'id', value: cohort.body.id, type: 'cohort' }] }] },
    });
    expect(flag.filters.groups[0].properties[0].cohort_name).toBe('Pros');
  });

  it('refuses a cohort with event filters', async () => {
    const cohort = await server.request(cohortsPath(server), {
      method: 'POST',
      body: {
        name: 'Doers',
        filters: {
          properties: {
            type: 'AND',
            values: [{ type: 'AND', values: [{ key: '$pageview', type: 'behavioral', value: 'performed_event', event_type: 'events' }] }],
          },
        },
      },
    });
    expect(cohort.status).toBe(201);
    const res = await server.request(flagsPath(server), {
      method: 'POST',
      body: { key: 'behavioural', filters: { groups: [{ properties: [{ key: 'id', value: cohort.body.id, type: 'cohort' }] }] } },
    });
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'behavioral_cohort_found',
      detail: "Cohort 'Doers' with filters on events cannot be used in feature flags.",
      attr: 'filters',
    });
  });
});
