import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { editFlag } from '../../src/flags/service.js';
import { getFlag } from '../../src/flags/store.js';
import { getTeam, getUser } from '../../src/environments/tenancy-store.js';
import { askFlags, createFlag, flagsPath, patchFlag } from './flag-helpers.js';

const server = useTestServer();

const patch = (id: number, body: unknown) => patchFlag(server, id, body);

const enrollment = (key: string) => ({
  properties: [{ key: `$feature_enrollment/${key}`, type: 'person', operator: 'exact', value: ['true'] }],
  rollout_percentage: 100,
});

describe('renaming a flag (FeatureFlagSerializer._update_super_groups_for_key_change)', () => {
  it('re-points $feature_enrollment conditions in super_groups at the new key', async () => {
    const flag = await createFlag(server, {
      key: 'early-old',
      filters: { groups: [{ properties: [], rollout_percentage: 0 }], super_groups: [enrollment('early-old')] },
    });
    const renamed = await patch(flag.id, { key: 'early-new' });
    expect(renamed.status, renamed.text).toBe(200);
    const read = await server.request(flagsPath(server, `${flag.id}/`));
    expect(read.body.filters.super_groups).toEqual([enrollment('early-new')]);
    expect(read.body.filters.groups).toEqual([{ properties: [], rollout_percentage: 0 }]);

    const enrolled = await askFlags(server, '/flags/?v=2', {
      distinct_id: 'early-adopter',
      person_properties: { '$feature_enrollment/early-new': true },
    });
    expect(enrolled.flags['early-new']).toMatchObject({ enabled: true, reason: { code: 'super_condition_value' } });
    const other = await askFlags(server, '/flags/?v=2', { distinct_id: 'someone-else' });
    expect(other.flags['early-new'].enabled).toBe(false);

    // Filters without super_groups are left as they were.
    const plain = await createFlag(server, { key: 'plain-old', filters: { groups: [{ properties: [], rollout_percentage: 40 }] } });
    expect((await patch(plain.id, { key: 'plain-new' })).body.filters).toEqual({ groups: [{ properties: [], rollout_percentage: 40 }] });
  });
});

/** What client A works from: its team and user, and the flag as it read it (before B's edit). */
async function readAsClientA(flagId: number) {
  const { db } = server.running.ctx.database;
  const team = (await getTeam(db, server.bootstrap.team.id))!;
  const user = (await getUser(db, server.bootstrap.user.id))!;
  return { team, user, seenByA: (await getFlag(db, team.projectId, flagId))! };
}

describe('renaming a flag while someone else edits it', () => {
  it('re-points the filters a client sends with the new key, even when another rename to that key landed first', async () => {
    const created = await createFlag(server, {
      key: 'race-old',
      filters: { groups: [{ properties: [], rollout_percentage: 0 }], super_groups: [enrollment('race-old')] },
    });
    const { team, user, seenByA } = await readAsClientA(created.id);
    expect((await patch(created.id, { key: 'race-new' })).status).toBe(200); // B, first
    // A read the flag before B's rename, and sends the new key with filters naming the old one.
    const sent = { groups: [{ properties: [], rollout_percentage: 5 }], super_groups: [enrollment('race-old')] };
    const edited = await editFlag(server.running.ctx, team, user, seenByA, { key: 'race-new', filters: sent }, 'PATCH');
    expect(edited.filters.super_groups).toEqual([enrollment('race-new')]);
  });

  it('re-points the stored filters as they are at the write, not as the request first read them', async () => {
    const created = await createFlag(server, {
      key: 'keep-old',
      filters: { groups: [{ properties: [], rollout_percentage: 0 }], super_groups: [enrollment('keep-old')] },
    });
    const { team, user, seenByA } = await readAsClientA(created.id);
    const filtersByB = { groups: [{ properties: [], rollout_percentage: 40 }], super_groups: [enrollment('keep-old')] };
    expect((await patch(created.id, { filters: filtersByB })).status).toBe(200); // B, first
    const edited = await editFlag(server.running.ctx, team, user, seenByA, { key: 'keep-new' }, 'PATCH');
    expect(edited.filters.groups).toEqual([{ properties: [], rollout_percentage: 40 }]);
    expect(edited.filters.super_groups).toEqual([enrollment('keep-new')]);
  });
});

describe('stale edits (FeatureFlagSerializer._get_conflicting_changes)', () => {
  it('refuses a stale edit of evaluation_runtime someone else changed', async () => {
    const flag = await createFlag(server, { key: 'runtime-contested' });
    const theirs = await patch(flag.id, { version: 1, evaluation_runtime: 'server' });
    expect(theirs.body.version).toBe(2);
    const mine = await patch(flag.id, { version: 1, original_flag: { evaluation_runtime: 'all' }, evaluation_runtime: 'client' });
    expect(mine.status).toBe(409);
    expect(mine.body).toMatchObject({ type: 'server_error', code: 'conflict', attr: null });
    // Setting the value the other editor already chose is no conflict.
    const same = await patch(flag.id, { version: 1, original_flag: { evaluation_runtime: 'all' }, evaluation_runtime: 'server' });
    expect(same.status).toBe(200);
  });

  it('compares original_flag structurally: key order and 10 vs 10.0 do not make a change', async () => {
    const flag = await createFlag(server, { key: 'reordered', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    await patch(flag.id, { version: 1, name: 'someone else was here' });
    const mine = await patch(flag.id, {
      version: 1,
      original_flag: { filters: { groups: [{ rollout_percentage: 10.0, properties: [] }] } },
      filters: { groups: [{ properties: [], rollout_percentage: 30 }] },
    });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.filters.groups[0].rollout_percentage).toBe(30);
  });
});

describe('key and name are trimmed (DRF CharField trim_whitespace)', () => {
  it('stores trimmed values and checks uniqueness on them', async () => {
    const flag = await createFlag(server, { key: '  padded-key\t', name: '  Padded  ' });
    expect(flag).toMatchObject({ key: 'padded-key', name: 'Padded' });
    const duplicate = await server.request(flagsPath(server), { method: 'POST', body: { key: ' padded-key ' } });
    expect(duplicate.body).toEqual({
      type: 'validation_error',
      code: 'unique',
      detail: 'There is already a feature flag with this key.',
      attr: 'key',
    });
    const renamed = await patch(flag.id, { key: ' padded-renamed ' });
    expect(renamed.body.key).toBe('padded-renamed');
    const blank = await server.request(flagsPath(server), { method: 'POST', body: { key: '   ' } });
    expect(blank.body).toEqual({ type: 'validation_error', code: 'blank', detail: 'This field may not be blank.', attr: 'key' });
  });
});

describe('filters.payloads', () => {
  it('refuses null as PostHog does (only a missing key defaults to {})', async () => {
    const res = await server.request(flagsPath(server), {
      method: 'POST',
      body: { key: 'null-payloads', filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: null } },
    });
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Payloads must be passed as a dictionary',
      attr: 'filters',
    });
  });
});

describe('tags', () => {
  it('names the Python type of a value that is not a list', async () => {
    const res = await server.request(flagsPath(server), { method: 'POST', body: { key: 'tag-string', tags: 'beta' } });
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'not_a_list',
      detail: 'Expected a list of items but got type "str".',
      attr: 'tags',
    });
  });
});
