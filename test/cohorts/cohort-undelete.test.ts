/**
 * Restoring a soft-deleted dynamic cohort (PATCH `deleted: false`) calculates it again, as PostHog's
 * CohortSerializer.update does: the calculator skips deleted cohorts, so its count went stale.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { cohortsPath, personFilter, storePerson } from '../flags/flag-helpers.js';

const server = useTestServer();

const readCohort = async (id: number) => (await server.request(cohortsPath(server, `${id}/`))).body;

const calculated = (id: number, count: number) =>
  waitFor(() => readCohort(id), {
    what: `cohort ${id} calculated with count ${count}`,
    until: (c) => !c.is_calculating && c.count === count,
  });

const patch = (id: number, body: unknown) => server.request(cohortsPath(server, `${id}/`), { method: 'PATCH', body });

describe('restoring a deleted cohort', () => {
  it('calculates a dynamic cohort again once undeleted, counting persons who matched meanwhile', async () => {
    await storePerson(server, ['restore-1'], { restore: 'yes' });
    await storePerson(server, ['restore-2'], { restore: 'yes' });
    const filters = { properties: { type: 'OR', values: [{ type: 'AND', values: [personFilter('restore', 'yes')] }] } };
    const created = await server.request(cohortsPath(server), { method: 'POST', body: { name: 'Restored', filters } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id;
    await calculated(id, 2);

    const deleted = await patch(id, { deleted: true });
    expect(deleted.body).toMatchObject({ deleted: true, is_calculating: false, count: 2 });
    // Stored while the cohort is deleted: its count of 2 is now stale.
    await storePerson(server, ['restore-3'], { restore: 'yes' });

    const restored = await patch(id, { deleted: false });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ deleted: false, is_calculating: true });
    await calculated(id, 3);
  });

  it('does not calculate a static cohort on restore, nor a deleted one that stays deleted', async () => {
    await storePerson(server, ['restore-static']);
    const created = await server.request(cohortsPath(server), {
      method: 'POST',
      body: { name: 'Static', is_static: true, distinct_ids: ['restore-static'] },
    });
    expect(created.status, created.text).toBe(201);
    await patch(created.body.id, { deleted: true });
    expect((await patch(created.body.id, { deleted: false })).body).toMatchObject({ deleted: false, is_calculating: false });

    const filters = { properties: { type: 'OR', values: [{ type: 'AND', values: [personFilter('restore', 'never')] }] } };
    const dynamic = (await server.request(cohortsPath(server), { method: 'POST', body: { name: 'Gone', filters } })).body;
    await calculated(dynamic.id, 0);
    await patch(dynamic.id, { deleted: true });
    expect((await patch(dynamic.id, { name: 'Still gone' })).body).toMatchObject({ deleted: true, is_calculating: false });
  });
});
