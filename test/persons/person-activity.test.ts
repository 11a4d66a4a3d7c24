/**
 * Person activity: `persons/:person_id/activity/` (one person's entries, the person found as
 * retrieve finds it) and `persons/activity/` (the environment's), newest first, paged by `limit`
 * and 1-based `page`. Entries are written with recordActivity, as the person actions write them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { recordActivity, type ActivityEntry } from '../../src/activity/store.js';
import { createKey, createProject } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { clockPast } from '../helpers/wait.js';
import { personsPath, seedPerson, type SeededPerson } from './person-fixtures.js';

const server = useTestServer();

let ada: SeededPerson;
let bob: SeededPerson;

/** Entries get their time when written; the next is written only once the clock has moved on, so "newest first" is unambiguous. */
async function record(entry: Partial<ActivityEntry> & Pick<ActivityEntry, 'itemId' | 'activity'>) {
  await recordActivity(server.running.ctx.database.db, {
    organizationId: server.bootstrap.organization.id,
    teamId: server.bootstrap.team.id,
    scope: 'Person',
    actor: { userId: server.bootstrap.user.id },
    ...entry,
  });
  await clockPast();
}

beforeAll(async () => {
  const res = await server.request('/batch/', {
    method: 'POST',
    key: null,
    body: {
      api_key: server.token,
      batch: [{ event: 'signed up', properties: { distinct_id: 'ada', $set: { email: 'ada@example.com' } } }],
    },
  });
  expect(res.status).toBe(200);
  await server.settle();
  const found = (await server.request(personsPath(server, '?distinct_id=ada'))).body.results[0];
  ada = { id: found.id, uuid: found.uuid };
  bob = await seedPerson(server, { distinctIds: ['bob'] });
  const { team: elsewhere } = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Elsewhere');

  await record({
    itemId: String(ada.id),
    activity: 'updated',
    changes: [{ type: 'Person', action: 'changed', field: 'properties', before: {}, after: { plan: 'pro' } }],
  });
  await record({ itemId: String(bob.id), activity: 'updated' });
  await record({ itemId: String(ada.id), activity: 'delete_property', actor: { userId: null } });
  // Not person activity of this environment: another scope with the same item id, another environment.
  await record({ itemId: String(ada.id), activity: 'updated', scope: 'Cohort' });
  await record({ itemId: String(ada.id), activity: 'updated', teamId: elsewhere.id });
  await record({ itemId: String(ada.id), activity: 'split_person', name: 'ada@example.com' });
});

const activityOf = (ref: string | number, query = '') => server.request(personsPath(server, `${ref}/activity/${query}`));

describe("a person's activity", () => {
  it("answers the person's entries newest first, in the environments' activity shape", async () => {
    const res = await activityOf(ada.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.total_count).toBe(3);
    expect(res.body.next).toBeNull();
    expect(res.body.previous).toBeNull();
    expect(res.body.results.map((r: any) => r.activity)).toEqual(['split_person', 'delete_property', 'updated']);
    const [split, deleted, updated] = res.body.results;
    expect(Object.keys(split).sort()).toEqual(['activity', 'created_at', 'detail', 'id', 'item_id', 'scope', 'user']);
    expect(split).toMatchObject({ scope: 'Person', item_id: String(ada.id), detail: { name: 'ada@example.com' } });
    expect(split.user).toEqual({ first_name: server.bootstrap.user.firstName, email: server.bootstrap.user.email });
    expect(deleted.user).toEqual({ first_name: 'System', email: null, is_system: true });
    expect(updated.detail.changes).toEqual([
      { type: 'Person', action: 'changed', field: 'properties', before: {}, after: { plan: 'pro' } },
    ]);
  });

  it('finds the person by uuid too, under both route bases', async () => {
    const byUuid = await activityOf(ada.uuid);
    expect(byUuid.status).toBe(200);
    expect(byUuid.body.total_count).toBe(3);
    const underProject = await server.request(`/api/projects/${server.bootstrap.project.id}/persons/${bob.id}/activity/`);
    expect(underProject.status).toBe(200);
    expect(underProject.body.results.map((r: any) => [r.item_id, r.activity])).toEqual([[String(bob.id), 'updated']]);
  });

  it("refuses what is no person id with PostHog's hint, and answers 404 for no such person", async () => {
    const bad = await activityOf('ada@example.com');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail:
        'The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=ada@example.com instead.',
      attr: null,
    });
    for (const missing of [999_999_999, '00000000-0000-4000-8000-000000000000']) {
      const res = await activityOf(missing);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    }
  });
});

describe("the environment's person activity", () => {
  it('answers every person entry of the environment, and nothing else', async () => {
    const res = await server.request(personsPath(server, 'activity/'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.total_count).toBe(4);
    expect(res.body.results.map((r: any) => [r.item_id, r.activity])).toEqual([
      [String(ada.id), 'split_person'],
      [String(ada.id), 'delete_property'],
      [String(bob.id), 'updated'],
      [String(ada.id), 'updated'],
    ]);
    expect(res.body.results.every((r: any) => r.scope === 'Person')).toBe(true);
  });

  it('pages by limit and 1-based page, with next and previous links', async () => {
    const first = await server.request(personsPath(server, 'activity/?limit=3'));
    expect(first.body.results).toHaveLength(3);
    expect(first.body.previous).toBeNull();
    const next = new URL(first.body.next);
    expect(next.pathname).toBe(personsPath(server, 'activity/'));
    expect(Object.fromEntries(next.searchParams)).toEqual({ limit: '3', page: '2' });

    const second = await server.request(next.pathname + next.search);
    expect(second.body.total_count).toBe(4);
    expect(second.body.results.map((r: any) => r.activity)).toEqual(['updated']);
    expect(second.body.results[0].item_id).toBe(String(ada.id));
    expect(second.body.next).toBeNull();
    expect(Object.fromEntries(new URL(second.body.previous).searchParams)).toEqual({ limit: '3', page: '1' });

    const person = await activityOf(ada.id, '?limit=1&page=2');
    expect(person.body.results.map((r: any) => r.activity)).toEqual(['delete_property']);
    expect(new URL(person.body.next).searchParams.get('page')).toBe('3');
    expect(new URL(person.body.previous).searchParams.get('page')).toBe('1');
  });

  it('answers an empty page past the end, however far', async () => {
    for (const query of [
      '?page=3',
      `?limit=1&page=${Number.MAX_SAFE_INTEGER}`,
      `?limit=${Number.MAX_SAFE_INTEGER}&page=${Number.MAX_SAFE_INTEGER}`,
    ]) {
      const res = await server.request(personsPath(server, `activity/${query}`));
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      expect(res.body.results).toEqual([]);
      expect(res.body.total_count).toBe(4);
      expect(res.body.next).toBeNull();
    }
  });

  it('refuses a limit or page that is not a positive integer with a 400', async () => {
    const cases: Array<[string, string, string]> = [
      ['limit=abc', 'limit', 'invalid_input'],
      ['limit=1.5', 'limit', 'invalid_input'],
      ['limit=', 'limit', 'invalid_input'],
      ['limit=0', 'limit', 'min_value'],
      ['page=-1', 'page', 'min_value'],
      ['page=two', 'page', 'invalid_input'],
      ['limit=99999999999999999999', 'limit', 'max_value'],
    ];
    for (const [query, attr, code] of cases) {
      for (const path of [personsPath(server, `activity/?${query}`), personsPath(server, `${ada.id}/activity/?${query}`)]) {
        const res = await server.request(path);
        expect(res.status, `${path}: ${res.text}`).toBe(400);
        expect(res.body).toMatchObject({ type: 'validation_error', code, attr });
      }
    }
  });
});

describe('person activity access', () => {
  it('takes activity_log:read, not person:read', async () => {
    const personReader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['person:read']);
    for (const path of [personsPath(server, 'activity/'), personsPath(server, `${ada.id}/activity/`)]) {
      const res = await server.request(path, { key: personReader });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        type: 'authentication_error',
        code: 'permission_denied',
        detail: "API key missing required scope 'activity_log:read'",
        attr: null,
      });
    }
    const activityReader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['activity_log:read']);
    expect((await server.request(personsPath(server, `${ada.id}/activity/`), { key: activityReader })).body.total_count).toBe(3);
  });
});
