/**
 * Dynamic cohorts' calculation (src/cohorts/calculator.ts), as PostHog's: created or updated, a
 * dynamic cohort answers `is_calculating: true` and is calculated in the background (`count`,
 * `last_calculation`, no errors); a person's changed properties are counted once the cohort is
 * stale (15 minutes, PostHog's MAX_AGE_MINUTES), not at once; one process at a time calculates a
 * cohort (a claim with a lease), and a calculation overtaken by a change stores nothing.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { cohortsPath, personFilter, storePerson } from '../flags/flag-helpers.js';
import { personsPath } from '../persons/person-fixtures.js';
import { claimCalculation, finishCalculation, renewCalculation } from '../../src/cohorts/store.js';

const server = useTestServer();

const rule = (...values: unknown[]) => ({ properties: { type: 'OR', values: [{ type: 'AND', values }] } });

async function createCohort(name: string, filters: unknown): Promise<any> {
  const res = await server.request(cohortsPath(server), { method: 'POST', body: { name, filters } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const readCohort = async (id: number) => (await server.request(cohortsPath(server, `${id}/`))).body;

/** Waits until the cohort's calculation is done with this count. */
const calculated = (id: number, count: number) =>
  waitFor(() => readCohort(id), {
    what: `cohort ${id} calculated with count ${count}`,
    until: (c) => !c.is_calculating && c.count === count,
  });

describe('dynamic cohort calculation', () => {
  it('calculates a cohort once created, and again once its definition changes, without holding the request', async () => {
    await storePerson(server, ['calc-pro-fr'], { calc: 'yes', plan: 'pro', country: 'FR' });
    await storePerson(server, ['calc-pro-de'], { calc: 'yes', plan: 'pro', country: 'DE' });
    await storePerson(server, ['calc-free-fr'], { calc: 'yes', plan: 'free', country: 'FR' });

    const created = await createCohort('Calc pros', rule(personFilter('calc', 'yes'), personFilter('plan', 'pro')));
    expect(created).toMatchObject({ is_calculating: true, count: null, last_calculation: null, errors_calculating: 0 });
    const first = await calculated(created.id, 2);
    expect(first).toMatchObject({ errors_calculating: 0, last_error_at: null });
    expect(Date.parse(first.last_calculation)).toBeGreaterThan(Date.parse(created.created_at) - 1);
    const listed = (await server.request(cohortsPath(server))).body.results.find((c: any) => c.id === created.id);
    expect(listed).toMatchObject({ count: 2, is_calculating: false });

    // A person's cohorts carry the count too.
    const person = (await server.request(personsPath(server, '?distinct_id=calc-pro-fr'))).body.results[0];
    const theirs = await server.request(personsPath(server, `cohorts/?person_id=${person.id}`));
    expect(theirs.body.results).toContainEqual({
      id: created.id,
      name: 'Calc pros',
      count: 2,
      is_calculating: false,
      errors_calculating: 0,
    });

    const patched = await server.request(cohortsPath(server, `${created.id}/`), {
      method: 'PATCH',
      body: { filters: rule(personFilter('calc', 'yes'), personFilter('country', 'FR'), personFilter('plan', 'free')) },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ is_calculating: true, version: 2 });
    const second = await calculated(created.id, 1);
    expect(Date.parse(second.last_calculation)).toBeGreaterThanOrEqual(Date.parse(first.last_calculation));

    // Soft-deleting does not ask for a calculation (as PostHog).
    const deleted = await server.request(cohortsPath(server, `${created.id}/`), { method: 'PATCH', body: { deleted: true } });
    expect(deleted.body).toMatchObject({ deleted: true, is_calculating: false, count: 1 });
  });

  it('counts changed persons on the recalculation of a stale cohort, not at once', async () => {
    await storePerson(server, ['gold-1'], { tier: 'gold' });
    const gold = await createCohort('Gold', rule(personFilter('tier', 'gold')));
    const before = await calculated(gold.id, 1);
    await storePerson(server, ['gold-2'], { tier: 'gold' });

    // Another cohort's calculation is a round of the calculator: the fresh one is left as it is.
    const wake = await createCohort('Silver', rule(personFilter('tier', 'silver')));
    await calculated(wake.id, 0);
    expect(await readCohort(gold.id)).toMatchObject({ count: 1, last_calculation: before.last_calculation });

    // Calculated 16 minutes ago: stale. The next round (another cohort's change starts one) counts again.
    const { db } = server.running.ctx.database;
    await db
      .updateTable('cohorts')
      .set({ last_calculation: new Date(Date.now() - 16 * 60_000).toISOString() })
      .where('id', '=', gold.id)
      .execute();
    await server.request(cohortsPath(server, `${wake.id}/`), { method: 'PATCH', body: { name: 'Silver again' } });
    await calculated(gold.id, 2);
  });

  it('is calculated by one process at a time; a claim that lapsed is taken over, and its holder then stores nothing', async () => {
    await storePerson(server, ['claim-1'], { claim: 'yes' });
    const cohort = await createCohort('Claimed', rule(personFilter('claim', 'yes')));
    const done = await calculated(cohort.id, 1);
    const { db } = server.running.ctx.database;

    // Two processes, A and B: A claims it, B cannot while A's lease lives.
    const a = await claimCalculation(db, cohort.id, 'process-a', new Date(), 60_000);
    expect(a).toMatchObject({ id: cohort.id, isCalculating: true });
    expect(await claimCalculation(db, cohort.id, 'process-b', new Date(), 60_000)).toBeUndefined();
    expect((await readCohort(cohort.id)).is_calculating).toBe(true);
    expect(await renewCalculation(db, cohort.id, 'process-a', 60_000)).toBe(true);

    // Once A's lease has lapsed (B looks a minute later), B takes it over; A can neither renew nor store.
    const b = await claimCalculation(db, cohort.id, 'process-b', new Date(Date.now() + 61_000), 60_000);
    expect(b).toBeDefined();
    expect(await renewCalculation(db, cohort.id, 'process-a', 60_000)).toBe(false);
    await finishCalculation(db, a!, 'process-a', 42, new Date());
    expect((await readCohort(cohort.id)).count).toBe(1);
    await finishCalculation(db, b!, 'process-b', 7, new Date());
    expect(await readCohort(cohort.id)).toMatchObject({ count: 7, is_calculating: false });
    expect(Date.parse((await readCohort(cohort.id)).last_calculation)).toBeGreaterThanOrEqual(Date.parse(done.last_calculation));
  });

  it('stores nothing from a calculation that a change overtook, and calculates the cohort again', async () => {
    await storePerson(server, ['overtaken-1'], { overtaken: 'yes' });
    const cohort = await createCohort('Overtaken', rule(personFilter('overtaken', 'yes')));
    await calculated(cohort.id, 1);
    const { db } = server.running.ctx.database;

    const claimed = await claimCalculation(db, cohort.id, 'process-a', new Date(), 60_000);
    const patched = await server.request(cohortsPath(server, `${cohort.id}/`), { method: 'PATCH', body: { name: 'Overtaken, renamed' } });
    expect(patched.body.is_calculating).toBe(true);
    await finishCalculation(db, claimed!, 'process-a', 99, new Date());
    expect(await readCohort(cohort.id)).toMatchObject({ count: 1, is_calculating: true });

    // The claim is given up: the cohort, still asked for, is calculated at the next round.
    await server.request(cohortsPath(server, `${cohort.id}/`), { method: 'PATCH', body: { description: 'wake' } });
    await calculated(cohort.id, 1);
  });
});
