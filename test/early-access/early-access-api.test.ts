/**
 * /api/projects/:id/early_access_feature/ against PostHog's EarlyAccessFeatureSerializer: the
 * shape, the validation messages, the linked flag's enrollment condition on create, on stage
 * changes and on delete, scopes and other projects; and the flag turning on at /flags for a person
 * whose stored `$feature_enrollment/<key>` is true.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { createForeignOrganization, createKey, createProject } from '../helpers/fixtures.js';
import { askFlags, createFlag, flagsPath, patchFlag, storePerson } from '../flags/flag-helpers.js';

const server = useTestServer();

const base = (projectId = server.bootstrap.team.id) => `/api/projects/${projectId}/early_access_feature/`;

async function create(body: Record<string, unknown>) {
  const res = await server.request(base(), { method: 'POST', body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const patch = (id: string, body: unknown) => server.request(`${base()}${id}/`, { method: 'PATCH', body });
const flagOf = async (id: number) => (await server.request(flagsPath(server, `${id}/`))).body;

function expectError(res: { status: number; body: any; text: string }, detail: string, attr: string | null, code = 'invalid_input') {
  expect(res.status, res.text).toBe(400);
  expect(res.body).toEqual({ type: 'validation_error', code, detail, attr });
}

describe('creating an early access feature', () => {
  it('creates its flag from the name, with no one enrolled before the feature is active', async () => {
    const feature = await create({ name: 'Hick bondoogling', description: 'Boondoogle your hicks', stage: 'concept' });
    expect(Object.keys(feature)).toEqual([
      'id',
      'feature_flag',
      'name',
      'description',
      'stage',
      'documentation_url',
      'payload',
      'created_at',
      'created_by',
    ]);
    expect(feature).toMatchObject({
      name: 'Hick bondoogling',
      description: 'Boondoogle your hicks',
      stage: 'concept',
      documentation_url: '',
      payload: {},
      created_by: { email: server.bootstrap.user.email },
    });
    expect(feature.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(feature.created_at).getTime()).not.toBeNaN();
    expect(feature.feature_flag).toMatchObject({ key: 'hick-bondoogling', active: true, deleted: false });
    expect(feature.feature_flag.filters).toEqual({ groups: [{ properties: [], rollout_percentage: 0, variant: null }] });
    const flag = await flagOf(feature.feature_flag.id);
    expect(flag.name).toBe('Feature Flag for Early Access Feature Hick bondoogling');

    const again = await server.request(base(), { method: 'POST', body: { name: 'Hick  Bondoogling!', stage: 'beta' } });
    expectError(again, 'There is already a feature flag with this key.', 'key', 'unique');
  });

  it('sets feature_enrollment on the new flag in an active stage', async () => {
    const feature = await create({ name: 'Sprocket beta', stage: 'beta', documentation_url: 'https://docs.example.com/sprocket' });
    expect(feature.documentation_url).toBe('https://docs.example.com/sprocket');
    expect(feature.feature_flag.filters).toEqual({
      groups: [{ properties: [], rollout_percentage: 0, variant: null }],
      feature_enrollment: true,
    });
  });

  it('links an existing flag, keeping its conditions and dropping legacy super_groups', async () => {
    const legacy = [
      {
        properties: [{ key: '$feature_enrollment/existing', type: 'person', operator: 'exact', value: ['true'] }],
        rollout_percentage: 100,
      },
    ];
    const groups = [{ properties: [{ key: 'xyz', value: 'ok', type: 'person', operator: 'exact' }], rollout_percentage: null }];
    const flag = await createFlag(server, { key: 'existing', filters: { groups, super_groups: legacy, payloads: { true: '"hi"' } } });
    const feature = await create({ name: 'Existing', stage: 'alpha', feature_flag_id: flag.id });
    expect(feature.feature_flag.id).toBe(flag.id);
    const linked = await flagOf(flag.id);
    expect(linked.filters).toEqual({ groups, payloads: { true: '"hi"' }, feature_enrollment: true });
    // The flag names its feature (FeatureFlagSerializer.features, the minimal serializer).
    expect(linked.features).toEqual([
      { id: feature.id, name: 'Existing', description: '', stage: 'alpha', documentationUrl: '', flagKey: 'existing', payload: {} },
    ]);

    // Linked in draft: the flag is not touched.
    const other = await createFlag(server, { key: 'untouched', filters: { groups } });
    await create({ name: 'Untouched', stage: 'draft', feature_flag_id: other.id });
    expect((await flagOf(other.id)).filters).toEqual({ groups });
    expect((await flagOf(other.id)).version).toBe(1);
  });

  it("refuses flags PostHog refuses, with PostHog's messages", async () => {
    const multivariate = await createFlag(server, {
      key: 'mv',
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
    expectError(
      await server.request(base(), { method: 'POST', body: { name: 'MV', stage: 'beta', feature_flag_id: multivariate.id } }),
      'Multivariate feature flags are not supported for Early Access Features.',
      null,
    );
    const group = await createFlag(server, {
      key: 'grouped',
      filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    expectError(
      await server.request(base(), { method: 'POST', body: { name: 'G', stage: 'beta', feature_flag_id: group.id } }),
      'Group-based feature flags are not supported for Early Access Features.',
      null,
    );
    const linked = await createFlag(server, { key: 'taken', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
    await create({ name: 'First', stage: 'beta', feature_flag_id: linked.id });
    expectError(
      await server.request(base(), { method: 'POST', body: { name: 'Second', stage: 'beta', feature_flag_id: linked.id } }),
      'Linked feature flag taken already has a feature attached to it.',
      null,
    );
    expectError(
      await server.request(base(), { method: 'POST', body: { name: 'Ghost', stage: 'beta', feature_flag_id: 987654 } }),
      'Feature Flag with this ID does not exist',
      null,
    );
  });

  it('refuses a soft-deleted flag as it refuses a missing one, and leaves that flag alone', async () => {
    const flag = await createFlag(server, { key: 'gone-flag', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
    expect((await patchFlag(server, flag.id, { deleted: true })).status).toBe(200);
    expectError(
      await server.request(base(), { method: 'POST', body: { name: 'Revenant', stage: 'beta', feature_flag_id: flag.id } }),
      'Feature Flag with this ID does not exist',
      null,
    );
    const list = await server.request(base());
    expect(list.body.results.map((feature: { name: string }) => feature.name)).not.toContain('Revenant');
    const stored = await flagOf(flag.id);
    expect(stored.deleted).toBe(true);
    expect(stored.filters.feature_enrollment).toBeUndefined();
  });

  it('validates fields in the serializer order', async () => {
    const post = (body: unknown) => server.request(base(), { method: 'POST', body });
    expectError(await post({ stage: 'beta' }), 'This field is required.', 'name', 'required');
    expectError(await post({ name: '  ', stage: 'beta' }), 'This field may not be blank.', 'name', 'blank');
    expectError(
      await post({ name: 'x'.repeat(201), stage: 'beta' }),
      'Ensure this field has no more than 200 characters.',
      'name',
      'max_length',
    );
    expectError(await post({ name: 'No stage' }), 'This field is required.', 'stage', 'required');
    expectError(await post({ name: 'Bad stage', stage: 'gamma' }), '"gamma" is not a valid choice.', 'stage', 'invalid_choice');
    expectError(await post({ name: 'Null', description: null, stage: 'beta' }), 'This field may not be null.', 'description', 'null');
    expectError(await post({ name: 'Url', stage: 'beta', documentation_url: 'not a url' }), 'Enter a valid URL.', 'documentation_url');
    expectError(await post({ name: 'Id', stage: 'beta', feature_flag_id: 'abc' }), 'A valid integer is required.', 'feature_flag_id');
    expectError(await post([1]), 'Invalid data. Expected a dictionary, but got list.', null);
  });
});

describe('changing the stage', () => {
  it('sets the enrollment entering the active stages and clears it leaving them', async () => {
    const feature = await create({ name: 'Stage walker', stage: 'concept' });
    const flagId = feature.feature_flag.id;
    const groups = [{ properties: [], rollout_percentage: 0, variant: null }];

    const beta = await patch(feature.id, { stage: 'beta' });
    expect(beta.status, beta.text).toBe(200);
    expect(beta.body.stage).toBe('beta');
    expect(beta.body.feature_flag.filters).toEqual({ groups, feature_enrollment: true });

    // Another field, or a move between active stages, leaves the flag as it is.
    const described = await patch(feature.id, { description: 'Something else!', stage: 'alpha' });
    expect(described.body).toMatchObject({ description: 'Something else!', stage: 'alpha' });
    expect((await flagOf(flagId)).filters).toEqual({ groups, feature_enrollment: true });

    const archived = await patch(feature.id, { stage: 'archived' });
    expect(archived.body.feature_flag.filters).toEqual({ groups, feature_enrollment: null });

    const ga = await patch(feature.id, { stage: 'general-availability', rollout_to_all: true });
    expect(ga.body.feature_flag.filters).toEqual({ groups: [{ properties: [], rollout_percentage: 100 }], feature_enrollment: null });

    expectError(await patch(feature.id, { stage: 'nope' }), '"nope" is not a valid choice.', 'stage', 'invalid_choice');
    expectError(await patch(feature.id, { name: '' }), 'This field may not be blank.', 'name', 'blank');
    const activity = await server.request(flagsPath(server, `${flagId}/activity/`));
    expect(activity.body.results.length).toBeGreaterThanOrEqual(3);
  });

  it('turns the flag on at /flags for enrolled persons only while the feature is active', async () => {
    const feature = await create({ name: 'Enroll me', stage: 'beta' });
    const key = feature.feature_flag.key;
    await storePerson(server, ['enrolled-person'], { [`$feature_enrollment/${key}`]: true });
    await storePerson(server, ['opted-out-person'], { [`$feature_enrollment/${key}`]: false });
    const ask = async (id: string) => (await askFlags(server, '/flags/?v=2', { distinct_id: id })).flags[key];
    expect(await ask('enrolled-person')).toMatchObject({ enabled: true, reason: { code: 'super_condition_value' } });
    expect((await ask('opted-out-person')).enabled).toBe(false);
    expect((await ask('stranger')).enabled).toBe(false);

    await patch(feature.id, { stage: 'draft' });
    expect((await ask('enrolled-person')).enabled).toBe(false);
  });
});

describe('deleting', () => {
  it('clears the enrollment and keeps the flag; a linked flag cannot be deleted', async () => {
    const feature = await create({ name: 'Short lived', stage: 'beta' });
    const flagId = feature.feature_flag.id;
    const refused = await patchFlag(server, flagId, { deleted: true });
    expectError(
      refused,
      'Cannot delete a feature flag that is in use with early access features. Please delete the early access feature before deleting the flag.',
      null,
    );

    const deleted = await server.request(`${base()}${feature.id}/`, { method: 'DELETE' });
    expect(deleted.status, deleted.text).toBe(204);
    expect((await server.request(`${base()}${feature.id}/`)).status).toBe(404);
    const flag = await flagOf(flagId);
    expect(flag.deleted).toBe(false);
    expect(flag.filters).toEqual({ groups: [{ properties: [], rollout_percentage: 0, variant: null }], feature_enrollment: null });
    expect((await patchFlag(server, flagId, { deleted: true })).status).toBe(200);
  });
});

describe('listing, scopes and other projects', () => {
  it('pages the list in creation order and answers under /api/environments too', async () => {
    const list = await server.request(`${base()}?limit=2`);
    expect(list.status).toBe(200);
    expect(list.body.count).toBeGreaterThan(2);
    expect(list.body.results).toHaveLength(2);
    expect(list.body.next).toContain('offset=2');
    expect(list.body.previous).toBeNull();
    const env = await server.request(`/api/environments/${server.bootstrap.team.id}/early_access_feature/?limit=2`);
    expect(env.body.results.map((f: any) => f.id)).toEqual(list.body.results.map((f: any) => f.id));
    expect((await server.request(`${base()}not-a-uuid/`)).status).toBe(404);
  });

  it('checks the scopes', async () => {
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['early_access_feature:read']);
    expect((await server.request(base(), { key: reader })).status).toBe(200);
    const denied = await server.request(base(), { key: reader, method: 'POST', body: { name: 'Nope', stage: 'beta' } });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe("API key missing required scope 'early_access_feature:write'");
    const flagsOnly = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['feature_flag:read']);
    expect((await server.request(base(), { key: flagsOnly })).body.detail).toBe(
      "API key missing required scope 'early_access_feature:read'",
    );
  });

  it("never reaches another project's features or flags", async () => {
    const mine = await create({ name: 'Mine only', stage: 'beta' });
    const { team } = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Other project');
    const theirs = await server.request(base(team.id), { method: 'POST', body: { name: 'Theirs', stage: 'beta' } });
    expect(theirs.status, theirs.text).toBe(201);
    expect((await server.request(base(team.id))).body.results.map((f: any) => f.name)).toEqual(['Theirs']);
    expect((await server.request(`${base(team.id)}${mine.id}/`)).status).toBe(404);
    expect((await server.request(`${base(team.id)}${mine.id}/`, { method: 'DELETE' })).status).toBe(404);
    // A flag of my project cannot be linked from theirs.
    const flag = await createFlag(server, { key: 'my-flag-only', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
    expectError(
      await server.request(base(team.id), { method: 'POST', body: { name: 'Borrow', stage: 'beta', feature_flag_id: flag.id } }),
      'Feature Flag with this ID does not exist',
      null,
    );
    const foreign = await createForeignOrganization(server.running.ctx.database);
    expect((await server.request(base(foreign.team.id))).status).toBe(403);
  });
});
