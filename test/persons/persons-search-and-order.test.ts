/**
 * The persons list's `search` (PersonStrategy: email, name, uuid or any distinct id, by
 * case-insensitive substring), its order (newest first, as PostHog pages and then sorts a page)
 * and how a person is shown: identified distinct ids first, and the display name's fallbacks.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { listPersons, personsPath, seedPerson, type SeededPerson } from './person-fixtures.js';

const server = useTestServer();
const ANON = '18c1a2b3d4e-0f1e2d3c4b5a6-4c0c6a7e-1fa400-18c1a2b3d4e';
let alice: SeededPerson;
let anon: SeededPerson;
let bare: SeededPerson;
let counted: SeededPerson;

beforeAll(async () => {
  // Stored with the anonymous id first, as a merge after $identify leaves them.
  alice = await seedPerson(server, {
    distinctIds: [ANON, 'alice-42'],
    properties: { plan: 'enterprise', $initial_referrer: 'https://news.example.net/' },
    createdAt: '2025-03-01T10:00:00.000Z',
  });
  anon = await seedPerson(server, { distinctIds: ['0a1b2c-3d4e-5f6a-7b8c-9d0e1f'], createdAt: '2025-03-02T10:00:00.000Z' });
  await seedPerson(server, {
    distinctIds: ['mail-1'],
    properties: { email: 'Grace.Hopper@Navy.example', name: 'Grace "Amazing" Hopper' },
    createdAt: '2025-02-01T10:00:00.000Z',
  });
  await seedPerson(server, { distinctIds: ['named-1'], properties: { name: 'Linus Torvalds' }, createdAt: '2025-01-01T10:00:00.000Z' });
  bare = await seedPerson(server, { distinctIds: [], createdAt: '2024-12-01T10:00:00.000Z' });
  counted = await seedPerson(server, {
    distinctIds: ['num-1'],
    properties: { email: '', name: 42 },
    createdAt: '2024-11-01T10:00:00.000Z',
  });
});

const searchFor = async (search: string) => (await listPersons(server, { search })).results.map((p: any) => p.uuid).sort();

describe('persons list: search', () => {
  it('matches the email or name property by case-insensitive substring of its value', async () => {
    const grace = (await listPersons(server, { distinct_id: 'mail-1' })).results[0].uuid;
    expect(await searchFor('navy.EXAMPLE')).toEqual([grace]);
    // The value as stored, not as JSON text (where the quotes would be escaped).
    expect(await searchFor(' "amazing" HOPPER ')).toEqual([grace]);
  });

  it('matches any distinct id by substring, and the uuid', async () => {
    expect(await searchFor('ALICE')).toEqual([alice.uuid]);
    expect(await searchFor('4c0c6a7e')).toEqual([alice.uuid]);
    expect(await searchFor(anon.uuid.slice(9, 23).toUpperCase())).toEqual([anon.uuid]);
  });

  it('does not match other properties, nor property keys', async () => {
    expect(await searchFor('enterprise')).toEqual([]);
    expect(await searchFor('plan')).toEqual([]);
    expect(await searchFor('news.example.net')).toEqual([]);
    expect(await searchFor('email')).toEqual([]);
  });
});

describe('persons list: order and shape', () => {
  it('lists the newest persons first', async () => {
    const body = await listPersons(server, {});
    // Printed as PostHog's DateTimeField prints them: no fraction when there are no microseconds.
    expect(body.results.map((p: any) => p.created_at)).toEqual([
      '2025-03-02T10:00:00Z',
      '2025-03-01T10:00:00Z',
      '2025-02-01T10:00:00Z',
      '2025-01-01T10:00:00Z',
      '2024-12-01T10:00:00Z',
      '2024-11-01T10:00:00Z',
    ]);
  });

  it('puts identified distinct ids first, and names a person by them before anonymous ones', async () => {
    const listed = (await listPersons(server, { distinct_id: 'alice-42' })).results[0];
    expect(listed.distinct_ids).toEqual(['alice-42', ANON]);
    expect(listed.name).toBe('alice-42');
    const retrieved = (await server.request(personsPath(server, `${alice.uuid}/`))).body;
    expect(retrieved.distinct_ids).toEqual(['alice-42', ANON]);
    expect(retrieved.name).toBe('alice-42');
  });

  it('falls back to the uuid (list) or the id (retrieve) without distinct ids', async () => {
    const listed = (await listPersons(server, {})).results.find((p: any) => p.uuid === bare.uuid);
    expect(listed.name).toBe(bare.uuid);
    expect((await server.request(personsPath(server, `${bare.id}/`))).body.name).toBe(String(bare.id));
  });

  it('names a person by the first truthy display property, whatever its type', async () => {
    // email is empty (falsy): the next display property, name, is shown as stored.
    expect((await server.request(personsPath(server, `${counted.uuid}/`))).body.name).toBe(42);
  });
});

describe('persons list: persons created in the same millisecond', () => {
  it('pages them by uuid descending, and shows each page by uuid ascending', async () => {
    const uuids = ['0190aaaa-0000-7000-8000-000000000001', '0190aaaa-0000-7000-8000-000000000002', '0190aaaa-0000-7000-8000-000000000003'];
    for (const [i, uuid] of uuids.entries()) {
      await seedPerson(server, { uuid, distinctIds: [`tie-${i}`], properties: { tie: true }, createdAt: '2026-01-01T00:00:00.000Z' });
    }
    const properties = JSON.stringify([{ key: 'tie', value: 'true' }]);
    const first = await listPersons(server, { properties, limit: '2' });
    expect(first.results.map((p: any) => p.uuid)).toEqual([uuids[1], uuids[2]]);
    const second = await listPersons(server, { properties, limit: '2', offset: '2' });
    expect(second.results.map((p: any) => p.uuid)).toEqual([uuids[0]]);
  });
});
