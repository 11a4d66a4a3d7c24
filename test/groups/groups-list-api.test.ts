import { beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '../../src/platform/db/values.js';
import { ensureGroupTypeIndex } from '../../src/groups/store.js';
import { useTestServer } from '../helpers/server.js';

// /groups/ and /groups/find/ against PostHog's GroupsViewSet (ee/clickhouse/views/groups.py).
const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;
const SAME_INSTANT = '2024-03-01T10:00:00.000Z';

async function storeGroup(groupType: string, groupKey: string, properties: Record<string, unknown>, createdAt: string) {
  const { db } = server.running.ctx.database;
  const teamId = server.bootstrap.team.id;
  const index = (await ensureGroupTypeIndex(db, teamId, groupType))!;
  await db
    .insertInto('groups')
    .values({
      team_id: teamId,
      group_type_index: index,
      group_key: groupKey,
      group_properties: toJson(properties),
      created_at: createdAt,
      version: 0,
    })
    .execute();
}

const keysOf = async (query: string) => {
  const res = await server.request(`${env()}/groups/?${query}`);
  expect(res.status).toBe(200);
  return res.body.results.map((g: any) => g.group_key);
};

/** A 400 in PostHog's envelope, compared with the status in one assertion. */
const invalid = (detail: string, attr: string) => ({
  status: 400,
  body: { type: 'validation_error', code: 'invalid_input', detail, attr },
});
const answer = (res: { status: number; body: unknown }) => ({ status: res.status, body: res.body });

beforeAll(async () => {
  await storeGroup('company', 'Acme-Corp', { name: 'Acme Corporation' }, '2024-01-05T00:00:00.000Z');
  await storeGroup('company', 'acme-labs', { industry: 'science', code: 'a_b' }, '2024-01-04T00:00:00.000Z');
  await storeGroup('company', 'acme-labs-eu', {}, '2024-01-03T12:00:00.000Z');
  await storeGroup('company', 'globex', { name: 'Globex' }, '2024-01-03T00:00:00.000Z');
  await storeGroup('company', '100%-club', {}, '2024-01-02T00:00:00.000Z');
  // Same creation time, stored out of key order.
  for (const key of ['b-tie', 'c-tie', 'a-tie']) await storeGroup('project', key, {}, SAME_INSTANT);
  await storeGroup('venue', 'hall-b', {}, '2024-01-06T08:30:00.250Z');
  await storeGroup('venue', 'hall-a', {}, '2024-01-05T08:30:00.000Z');
});

describe('groups list and find', () => {
  it('asks for group_type_index with PostHog list message', async () => {
    const message =
      'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.';
    for (const query of ['', '?group_type_index=', '?search=acme']) {
      expect(answer(await server.request(`${env()}/groups/${query}`))).toEqual(invalid(message, 'group_type_index'));
    }
  });

  it('refuses what Python int() refuses, and takes what it takes', async () => {
    for (const value of ['abc', '1.5', '0x0', '1e0']) {
      const res = await server.request(`${env()}/groups/?group_type_index=${value}`);
      expect(answer(res)).toEqual(invalid('A valid integer is required.', 'group_type_index'));
    }
    // int() allows underscores between digits.
    expect(await keysOf('group_type_index=0_1')).toEqual(['c-tie', 'b-tie', 'a-tie']);
    // A repeated parameter counts by its last value, as Django's QueryDict.get.
    expect(await keysOf('group_type_index=0&group_type_index=1')).toEqual(['c-tie', 'b-tie', 'a-tie']);
  });

  it('answers an index no group type has with an empty page', async () => {
    for (const value of ['7', '-1', '99999999999999999999']) {
      const res = await server.request(`${env()}/groups/?group_type_index=${value}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ count: 0, results: [] });
    }
  });

  it('filters by group_key, a case-insensitive substring with literal wildcards', async () => {
    expect(await keysOf('group_type_index=0&group_key=ACME')).toEqual(['Acme-Corp', 'acme-labs', 'acme-labs-eu']);
    expect(await keysOf('group_type_index=0&group_key=%25')).toEqual(['100%-club']);
    expect(await keysOf('group_type_index=0&group_key=_')).toEqual([]);
  });

  it('searches the properties (substring) or the key (whole, any case)', async () => {
    // "acme" is in Acme-Corp's properties, only part of acme-labs' key.
    expect(await keysOf('group_type_index=0&search=acme')).toEqual(['Acme-Corp']);
    expect(await keysOf('group_type_index=0&search=ACME-LABS')).toEqual(['acme-labs']);
    expect(await keysOf('group_type_index=0&search=_')).toEqual(['acme-labs']);
    // Not trimmed: " globex" is neither the key nor in the properties.
    expect(await keysOf('group_type_index=0&search=%20globex')).toEqual([]);
    expect(await keysOf('group_type_index=0&search=acme&group_key=labs')).toEqual([]);
  });

  it('orders equal creation times by key, descending', async () => {
    expect(await keysOf('group_type_index=1')).toEqual(['c-tie', 'b-tie', 'a-tie']);
    expect(await keysOf('group_type_index=1&limit=1&offset=1')).toEqual(['b-tie']);
  });

  it("prints created_at as PostHog's DateTimeField: Z, microseconds only when there are any", async () => {
    const listed = (await server.request(`${env()}/groups/?group_type_index=2`)).body.results;
    const found = (await server.request(`${env()}/groups/find/?group_type_index=2&group_key=hall-b`)).body;
    expect([...listed.map((g: any) => g.created_at), found.created_at]).toEqual([
      '2024-01-06T08:30:00.250000Z',
      '2024-01-05T08:30:00Z',
      '2024-01-06T08:30:00.250000Z',
    ]);
  });

  it('find: PostHog required-parameter errors, and 404 for an index no type has', async () => {
    const find = (query: string) => server.request(`${env()}/groups/find/?${query}`);
    const required = (attr: string) => invalid('This query parameter is required.', attr);
    expect(answer(await find('group_key=globex'))).toEqual(required('group_type_index'));
    expect(answer(await find('group_type_index=0'))).toEqual(required('group_key'));
    expect(answer(await find('group_type_index=0&group_key='))).toEqual(required('group_key'));
    // PostHog's find answers a non-integer with a 500; the list's message stands in.
    expect(answer(await find('group_type_index=x&group_key=globex'))).toEqual(invalid('A valid integer is required.', 'group_type_index'));
    const res = await find('group_type_index=7&group_key=globex');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ type: 'invalid_request', code: 'not_found' });
    const found = await find('group_type_index=x&group_type_index=0&group_key=globex');
    expect(found.status).toBe(200);
  });
});
