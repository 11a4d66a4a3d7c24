/**
 * PostHog's deprecated cohort `groups`: read as filters when a cohort is created or updated without
 * `filters` (PostHog's Cohort.properties), refused in words when PostHog cannot read them; the
 * name's and description's lengths as PostHog's model.
 */
import { describe, expect, it } from 'vitest';
import { filtersFromLegacyGroups, filtersGiven } from '../../src/cohorts/core/legacy-groups.js';
import { useTestServer } from '../helpers/server.js';
import { askFlags, cohortsPath, createFlag, personFilter, storePerson } from '../flags/flag-helpers.js';

describe('filtersFromLegacyGroups', () => {
  it('ORs the groups, ANDs a group’s properties, and types untyped and event filters as person ones', () => {
    expect(
      filtersFromLegacyGroups([
        {
          properties: [
            { key: 'plan', value: 'pro' },
            { key: 'country', value: 'FR', type: 'event', operator: 'exact' },
          ],
        },
        { properties: { email: 'a@b.c' } },
        { properties: { type: 'OR', values: [personFilter('x', 1)] } },
      ]),
    ).toEqual({
      properties: {
        type: 'OR',
        values: [
          {
            type: 'AND',
            values: [
              { key: 'plan', value: 'pro', type: 'person', operator: 'exact' },
              { key: 'country', value: 'FR', type: 'person', operator: 'exact' },
            ],
          },
          { type: 'AND', values: [{ key: 'email', value: 'a@b.c', type: 'person', operator: 'exact' }] },
          { type: 'OR', values: [personFilter('x', 1)] },
        ],
      },
    });
  });

  it('reads an event group as a behavioral filter over its days, 365 when none', () => {
    const [once, thrice] = (
      filtersFromLegacyGroups([{ event_id: 'signed up' }, { event_id: 'paid', days: 7, count: 3, count_operator: 'gte' }]).properties as {
        values: Array<{ values: unknown[] }>;
      }
    ).values;
    expect(once!.values).toEqual([
      { key: 'signed up', type: 'behavioral', value: 'performed_event', event_type: 'events', time_interval: 'day', time_value: 365 },
    ]);
    expect(thrice!.values).toEqual([
      {
        key: 'paid',
        type: 'behavioral',
        value: 'performed_event_multiple',
        event_type: 'events',
        time_interval: 'day',
        time_value: 7,
        operator: 'gte',
        operator_value: 3,
      },
    ]);
  });

  it('refuses what PostHog cannot read', () => {
    expect(() => filtersFromLegacyGroups('bad')).toThrow('Expected a list of groups.');
    expect(() => filtersFromLegacyGroups([{}])).toThrow('Cohort group needs properties or action_id or event_id');
    expect(() => filtersFromLegacyGroups([{ properties: [] }])).toThrow('Cohort group needs properties or action_id or event_id');
    expect(() => filtersFromLegacyGroups([7])).toThrow('Each group must be an object.');
  });

  it('takes filters as given only when Python would find them truthy', () => {
    expect([undefined, null, {}, [], ''].map(filtersGiven)).toEqual([false, false, false, false, false]);
    expect([{ properties: { type: 'AND', values: [] } }, 'x'].map(filtersGiven)).toEqual([true, true]);
  });
});

const server = useTestServer();

async function create(body: Record<string, unknown>) {
  return server.request(cohortsPath(server), { method: 'POST', body });
}
const memberIds = async (id: number) => {
  const res = await server.request(cohortsPath(server, `${id}/persons/`));
  expect(res.status, res.text).toBe(200);
  return (res.body.results as Array<{ distinct_ids: string[] }>).map((p) => p.distinct_ids[0]).sort();
};

describe('POST and PATCH /cohorts/ with groups', () => {
  it('selects by the groups’ properties, in members and in a flag on the cohort', async () => {
    await storePerson(server, ['legacy-pro'], { plan: 'pro' });
    await storePerson(server, ['legacy-free'], { plan: 'free' });
    const res = await create({ name: 'Pro users', groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] });
    expect(res.status, res.text).toBe(201);
    expect(res.body.filters.properties.values).toEqual([
      { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }] },
    ]);
    expect(await memberIds(res.body.id)).toEqual(['legacy-pro']);

    await createFlag(server, {
      key: 'legacy-pro-only',
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: res.body.id }], rollout_percentage: 100 }] },
    });
    const enabled = async (distinctId: string) =>
      (await askFlags(server, '/flags/?v=2', { distinct_id: distinctId })).flags['legacy-pro-only'].enabled;
    expect(await enabled('legacy-pro')).toBe(true);
    expect(await enabled('legacy-free')).toBe(false);

    const patched = await server.request(cohortsPath(server, `${res.body.id}/`), {
      method: 'PATCH',
      body: { groups: [{ properties: { plan: 'free' } }] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(await memberIds(res.body.id)).toEqual(['legacy-free']);
  });

  it('keeps filters over groups when both are given', async () => {
    const res = await create({
      name: 'Both',
      filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [personFilter('plan', 'team')] }] } },
      groups: [{ properties: [{ key: 'plan', value: 'pro' }] }],
    });
    expect(res.status, res.text).toBe(201);
    expect(JSON.stringify(res.body.filters)).toContain('"team"');
    expect(JSON.stringify(res.body.filters)).not.toContain('"pro"');
  });

  it('answers 400 for groups it cannot read, a name past 400 characters and a description past 1000', async () => {
    for (const groups of ['bad', [{}], [{ days: 3 }]]) {
      const res = await create({ name: 'Bad groups', groups });
      expect(res.status, res.text).toBe(400);
      expect(res.body.attr).toBe('groups');
    }
    const long = await create({ name: 'n'.repeat(401), filters: { properties: { type: 'AND', values: [] } } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ attr: 'name', detail: 'Ensure this field has no more than 400 characters.' });
    expect((await create({ name: 'n'.repeat(400), is_static: true })).status).toBe(201);
    const described = await create({ name: 'd', description: 'd'.repeat(1001), is_static: true });
    expect(described.status).toBe(400);
    expect(described.body.attr).toBe('description');
  });
});
