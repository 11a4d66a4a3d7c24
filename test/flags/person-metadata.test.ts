/**
 * person_metadata filters (`created_at`, the person row's own column, PostHog's "First seen") in a
 * cohort: judged against the stored person by the cohort's members and calculation, a person's
 * cohorts and /flags for a flag that targets the cohort (flags take them only through a cohort, as
 * PostHog's serializer); a person property of the same name does not answer for it.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { askFlags, cohortsPath, createFlag, storePerson } from './flag-helpers.js';
import { judgedPersonProperties, personMetadataKey } from '../../src/flags/engine/index.js';

const server = useTestServer();

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const firstSeenWithin7Days = { key: 'created_at', type: 'person_metadata', operator: 'is_date_after', value: '-7d' };

async function createCohort(name: string, values: unknown[]): Promise<number> {
  const res = await server.request(cohortsPath(server), {
    method: 'POST',
    body: { name, filters: { properties: { type: 'AND', values: [{ type: 'AND', values }] } } },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

describe('person_metadata created_at', () => {
  it('is the stored row under its reserved key, whatever the properties hold', () => {
    const person = { properties: { created_at: 'not a date', plan: 'pro' }, createdAt: '2024-03-01T10:00:00.000Z' };
    expect(judgedPersonProperties(person)).toEqual({
      created_at: 'not a date',
      plan: 'pro',
      [personMetadataKey('created_at')]: '2024-03-01T10:00:00.000Z',
    });
  });

  it('selects a cohort’s members, its calculated count, a person’s cohorts and a cohort-targeted flag', async () => {
    const recent = await storePerson(server, ['cohort-meta-new'], { created_at: '2000-01-01T00:00:00Z' }, daysAgo(2));
    await storePerson(server, ['cohort-meta-old'], { created_at: new Date().toISOString() }, daysAgo(40));
    const id = await createCohort('First seen this week', [firstSeenWithin7Days]);

    const members = await server.request(cohortsPath(server, `${id}/persons/`));
    expect(members.status, members.text).toBe(200);
    expect(members.body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids[0])).toEqual(['cohort-meta-new']);

    await expect
      .poll(async () => {
        const res = await server.request(cohortsPath(server, `${id}/`));
        return res.body.is_calculating === false ? res.body.count : null;
      })
      .toBe(1);

    const personCohorts = await server.request(`/api/environments/${server.bootstrap.team.id}/persons/cohorts/?person_id=${recent.uuid}`);
    expect(personCohorts.status, personCohorts.text).toBe(200);
    expect(personCohorts.body.results.map((c: { id: number }) => c.id)).toContain(id);

    await createFlag(server, {
      key: 'new-users-cohort',
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: id }], rollout_percentage: 100 }] },
    });
    const flag = async (distinctId: string, personProperties: Record<string, unknown> = {}) =>
      (await askFlags(server, '/flags/?v=2', { distinct_id: distinctId, person_properties: personProperties })).flags['new-users-cohort']
        .enabled;
    expect(await flag('cohort-meta-new')).toBe(true);
    expect(await flag('cohort-meta-old')).toBe(false);
    // Properties given in the request do not stop the stored row from being read.
    expect(await flag('cohort-meta-new', { plan: 'pro' })).toBe(true);
    // An unknown distinct id has no row: no match.
    expect(await flag('cohort-meta-nobody')).toBe(false);
  });
});
