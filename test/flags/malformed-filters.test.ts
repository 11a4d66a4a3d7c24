/**
 * Filters whose conditions are not of the shape evaluation reads: the API refuses them (flags and
 * survey targeting), and a flag stored that way before fails alone in /flags, as PostHog's flags
 * service skips a flag whose filters it cannot read, instead of answering 500 for every flag.
 */
import { describe, expect, it } from 'vitest';
import { FLAGS_TOPIC } from '../../src/flags/service.js';
import { toJson } from '../../src/platform/db/values.js';
import { evaluateFlags, type FlagDefinition } from '../../src/flags/engine/index.js';
import { useTestServer } from '../helpers/server.js';
import { askFlags, createFlag, flagsPath, patchFlag } from './flag-helpers.js';

const server = useTestServer();

const MALFORMED: Array<[string, Record<string, unknown>, string]> = [
  ['properties that are not a list', { groups: [{ properties: 'x', rollout_percentage: 100 }] }, 'properties must be a list'],
  ['a property that is not an object', { groups: [{ properties: ['x'], rollout_percentage: 100 }] }, 'each property must be an object'],
  [
    'a rollout that is not a number',
    { groups: [{ properties: [], rollout_percentage: 'abc' }] },
    'rollout_percentage must be a number or null',
  ],
  ['a condition that is not an object', { groups: ['x'] }, 'each of groups must be an object'],
  ['super_groups that are not a list', { groups: [{ properties: [] }], super_groups: 'x' }, 'super_groups must be a list'],
  ['a malformed super group', { groups: [{ properties: [] }], super_groups: [{ properties: 'x' }] }, 'properties must be a list'],
  [
    'a malformed holdout group',
    { groups: [{ properties: [] }], holdout_groups: [{ properties: [], rollout_percentage: '5' }] },
    'rollout_percentage must be a number or null',
  ],
];

describe('the flags API refuses filters it could not evaluate', () => {
  for (const [name, filters, problem] of MALFORMED) {
    it(`refuses ${name} on create and on edit`, async () => {
      const created = await server.request(flagsPath(server), { method: 'POST', body: { key: 'malformed', filters } });
      expect(created.status, created.text).toBe(400);
      expect(created.body).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: `Filters are not valid (${problem})`,
        attr: 'filters',
      });
      const flag = await createFlag(server, {
        key: `fine-${Math.random().toString(36).slice(2)}`,
        filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
      });
      const edited = await patchFlag(server, flag.id, { filters });
      expect(edited.status, edited.text).toBe(400);
      expect(edited.body.detail).toBe(`Filters are not valid (${problem})`);
    });
  }

  it('still accepts null properties and a null rollout', async () => {
    const flag = await createFlag(server, { key: 'nulls', filters: { groups: [{ properties: null, rollout_percentage: null }] } });
    expect(flag.filters.groups).toEqual([{ properties: null, rollout_percentage: null }]);
  });

  it("refuses them as a survey's targeting filters", async () => {
    const res = await server.request(`/api/projects/${server.bootstrap.team.id}/surveys/`, {
      method: 'POST',
      body: { name: 'targeted', type: 'popover', targeting_flag_filters: { groups: [{ properties: 'x', rollout_percentage: 50 }] } },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_input', detail: 'Filters are not valid (properties must be a list)', attr: 'filters' });
  });
});

describe('a flag stored with malformed filters', () => {
  it('fails alone in /flags; the other flags still evaluate', async () => {
    await createFlag(server, { key: 'healthy', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    for (const [name, filters] of MALFORMED) {
      const broken = await createFlag(server, { key: 'broken', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
      // Written straight into the row, as a flag saved before the API refused such filters.
      await server.running.ctx.database.db
        .updateTable('feature_flags')
        .set({ filters: toJson(filters) })
        .where('id', '=', broken.id)
        .execute();
      await server.running.ctx.changes.publish({ topic: FLAGS_TOPIC, id: server.bootstrap.team.projectId });

      const v2 = await askFlags(server, '/flags/?v=2', { distinct_id: 'someone' });
      expect(v2.flags.healthy, name).toMatchObject({ enabled: true, reason: { code: 'condition_match' } });
      expect(v2.flags.broken, name).toMatchObject({ enabled: false });
      expect(v2.errorsWhileComputingFlags, name).toBe(true);
      const legacy = await askFlags(server, '/decide/?v=3', { distinct_id: 'someone' });
      expect(legacy.featureFlags.healthy, name).toBe(true);

      const feed = await server.request(flagsPath(server, 'local_evaluation/'));
      expect(feed.status, `${name}: ${feed.text}`).toBe(200);
      expect(
        feed.body.flags.map((flag: { key: string }) => flag.key),
        name,
      ).toEqual(expect.arrayContaining(['broken', 'healthy']));
      await server.request(flagsPath(server, `${broken.id}/`), { method: 'PATCH', body: { deleted: true } });
    }
  });
});

describe('the engine with malformed definitions', () => {
  it('fails only the malformed flag, also for flags depending on it', () => {
    for (const [name, filters] of MALFORMED) {
      const flags: FlagDefinition[] = [
        { id: 1, key: 'broken', active: true, filters: filters as FlagDefinition['filters'] },
        { id: 2, key: 'healthy', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
        {
          id: 3,
          key: 'dependent',
          active: true,
          filters: { groups: [{ properties: [{ key: '1', type: 'flag', operator: 'flag_evaluates_to', value: false }] }] },
        },
      ];
      const result = evaluateFlags({ flags }, { distinct_id: 'someone' });
      expect(result.flags.broken, name).toMatchObject({ enabled: false, failed: true, reason: { code: 'internal_error' } });
      expect(result.flags.healthy?.enabled, name).toBe(true);
      expect(result.flags.dependent?.enabled, name).toBe(true);
      expect(result.errorsWhileComputingFlags, name).toBe(true);
    }
  });
});
