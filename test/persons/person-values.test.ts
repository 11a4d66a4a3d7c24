/**
 * `persons/values/?key=&value=`: the 20 most common values of a person property among the newest
 * 100,000 persons that have one, by case-insensitive literal substring, named as PostHog names
 * them; `distinct_id` from the distinct-id table. Each test uses its own property key, so the
 * persons of the others do not count.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertPersons } from '../../src/persons/batch-store.js';
import { insertPerson } from '../../src/persons/store.js';
import { SCANNED_PERSONS } from '../../src/persons/property-values-store.js';
import { createKey, createProject } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { seedPerson } from './person-fixtures.js';

const server = useTestServer();

const valuesPath = (params: Record<string, string>, base = `/api/environments/${server.bootstrap.team.id}`) =>
  `${base}/persons/values/?${new URLSearchParams(params)}`;

async function values(params: Record<string, string>, teamId?: number): Promise<Array<{ name: string; count: number }>> {
  const res = await server.request(valuesPath(params, teamId === undefined ? undefined : `/api/environments/${teamId}`));
  expect(res.status, res.text).toBe(200);
  expect(res.body.refreshing).toBe(false);
  return res.body.results;
}

/** One person per entry, created by capturing an event that `$set`s the properties. */
async function capturePersons(prefix: string, propertiesPerPerson: Array<Record<string, unknown>>) {
  await server.ingest(
    propertiesPerPerson.map((properties, i) => ({ event: 'signed up', properties: { distinct_id: `${prefix}-${i}`, $set: properties } })),
  );
}

describe('persons/values/ without a usable key', () => {
  it('answers no values, with the cache header, under both route bases', async () => {
    await capturePersons('nokey', [{ nokey: 'pro' }]);
    for (const base of [`/api/environments/${server.bootstrap.team.id}`, `/api/projects/${server.bootstrap.project.id}`]) {
      for (const params of [{}, { key: '' }, { key: '$virt_revenue' }, { value: 'pro' }] as Array<Record<string, string>>) {
        const res = await server.request(valuesPath(params, base));
        expect(res.status, res.text).toBe(200);
        expect(res.body).toEqual({ results: [], refreshing: false });
        expect(res.headers.get('cache-control')).toBe('max-age=10');
      }
    }
  });
});

describe('persons/values/ with a NUL character', () => {
  it('answers a 400 envelope, not a 500, for a NUL in the key or the searched value (PostgreSQL takes none in text)', async () => {
    const expected = {
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Text may not contain NUL (\\u0000) characters.',
      attr: null,
    };
    // SQLite may read a NUL as text (a bound value, a path it can parse): that finds nothing.
    const refusedOrNothing = (res: { status: number; body: any }, what: string) => {
      if (res.status === 200 && server.running.ctx.database.dialect === 'sqlite') expect(res.body.results, what).toEqual([]);
      else expect({ status: res.status, body: res.body }, what).toEqual({ status: 400, body: expected });
    };
    for (const params of [
      { key: '\u0000' },
      { key: 'a\u0000b' },
      { key: 'plan', value: '\u0000' },
      { key: 'distinct_id', value: 'x\u0000' },
    ] as Array<Record<string, string>>) {
      refusedOrNothing(await server.request(valuesPath(params)), JSON.stringify(params));
    }
    // The persons list's property filter, whose key goes the same way.
    const filter = encodeURIComponent(JSON.stringify([{ key: 'a\u0000', value: 'x', type: 'person' }]));
    refusedOrNothing(await server.request(`/api/environments/${server.bootstrap.team.id}/persons/?properties=${filter}`), 'persons list');
  });
});

describe('persons/values/ counts', () => {
  it('counts persons per value, most common first, leaving out null, empty and missing values', async () => {
    await capturePersons('plan', [
      { plan: 'pro' },
      { plan: 'free' },
      { plan: 'pro' },
      { plan: 'enterprise' },
      { plan: 'free' },
      { plan: 'pro' },
      { plan: '' },
      { plan: null },
      { other: 'x' },
    ]);
    const res = await server.request(valuesPath({ key: 'plan' }, `/api/projects/${server.bootstrap.project.id}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('max-age=10');
    expect(res.body).toEqual({
      results: [
        { name: 'pro', count: 3 },
        { name: 'free', count: 2 },
        { name: 'enterprise', count: 1 },
      ],
      refreshing: false,
    });
  });

  it('orders equal counts by the bytes of the value, and answers at most 20', async () => {
    // 25 values once each, two of them twice: upper case sorts before lower case in byte order.
    const names = Array.from({ length: 25 }, (_, i) => `${i % 2 ? 'v' : 'V'}${String(i).padStart(2, '0')}`);
    await capturePersons(
      'tie',
      [...names, 'v13', 'V20'].map((tier) => ({ tier })),
    );
    const expected = [
      { name: 'V20', count: 2 },
      { name: 'v13', count: 2 },
      ...names
        .filter((n) => n !== 'V20' && n !== 'v13')
        .sort((a, b) => (a < b ? -1 : 1))
        .slice(0, 18)
        .map((name) => ({ name, count: 1 })),
    ];
    expect(expected[2]!.name).toBe('V00');
    expect(await values({ key: 'tier' })).toEqual(expected);
  });

  it('counts only the persons of the environment asked about', async () => {
    const { team } = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Values elsewhere');
    await seedPerson(server, { distinctIds: ['elsewhere-1'], properties: { region: 'eu' } });
    await insertPerson(
      server.running.ctx.database.db,
      { uuid: randomUUID(), teamId: team.id, properties: { region: 'us' }, isIdentified: false, createdAt: '2025-01-01T00:00:00.000Z' },
      [],
    );
    expect(await values({ key: 'region' })).toEqual([{ name: 'eu', count: 1 }]);
    expect(await values({ key: 'region' }, team.id)).toEqual([{ name: 'us', count: 1 }]);
  });
});

describe('persons/values/ value filter', () => {
  it('matches a case-insensitive substring where %, _ and \\ are themselves', async () => {
    await capturePersons('promo', [
      { promo: '50% OFF' },
      { promo: '50 off' },
      { promo: 'a_b' },
      { promo: 'axb' },
      { promo: 'back\\slash' },
      { promo: 'backslash' },
    ]);
    const names = async (value: string) => (await values({ key: 'promo', value })).map((v) => v.name).sort();
    expect(await names('Off')).toEqual(['50 off', '50% OFF']);
    expect(await names('%')).toEqual(['50% OFF']);
    expect(await names('0%')).toEqual(['50% OFF']);
    expect(await names('_')).toEqual(['a_b']);
    expect(await names('\\')).toEqual(['back\\slash']);
    expect(await names('nothing like it')).toEqual([]);
    // An empty value filters nothing, as PostHog's `if value:`.
    expect(await names('')).toHaveLength(6);
  });
});

describe('persons/values/ names', () => {
  it('names booleans, numbers, objects and arrays as PostHog prints them, grouping values of the same text', async () => {
    await capturePersons('typed', [
      { typed: true },
      { typed: false },
      { typed: 'true' },
      { typed: 5 },
      { typed: '5' },
      { typed: 3.141592653589793 },
      { typed: 0.00001 },
      { typed: { b: [1, 2], a: 1, é: 'x' } },
      { typed: [1, 'two', null] },
    ]);
    // Equal counts in byte order of the grouped text: `0.00001`, `3.14…`, the array's JSON, `false`, the object's JSON.
    expect(await values({ key: 'typed' })).toEqual([
      { name: '5', count: 2 },
      { name: 'true', count: 2 },
      { name: '1e-05', count: 1 },
      { name: '3.141592653589793', count: 1 },
      { name: '[1, "two", null]', count: 1 },
      { name: 'false', count: 1 },
      { name: '{"a": 1, "b": [1, 2], "\\u00e9": "x"}', count: 1 },
    ]);
    // A number is searched as its stored JSON text on both backends (SQLite's cast would print 1.0e-05).
    expect(await values({ key: 'typed', value: '0.0000' })).toEqual([{ name: '1e-05', count: 1 }]);
    expect(await values({ key: 'typed', value: '5897931' })).toEqual([]);
  });

  it('reads keys with dots, quotes, backslashes and dollars as the key itself', async () => {
    await seedPerson(server, {
      distinctIds: ['odd-keys-1'],
      properties: { 'a.b': 'dotted', a: { b: 'nested' }, 'say "hi"': 'quoted', 'back\\key': 'slashed', $initial_os: 'Mac OS X' },
    });
    expect(await values({ key: 'a.b' })).toEqual([{ name: 'dotted', count: 1 }]);
    expect(await values({ key: 'say "hi"' })).toEqual([{ name: 'quoted', count: 1 }]);
    expect(await values({ key: 'back\\key' })).toEqual([{ name: 'slashed', count: 1 }]);
    expect(await values({ key: '$initial_os', value: 'mac' })).toEqual([{ name: 'Mac OS X', count: 1 }]);
    expect(await values({ key: 'a' })).toEqual([{ name: '{"b": "nested"}', count: 1 }]);
  });
});

describe('persons/values/?key=distinct_id', () => {
  it('lists the distinct ids containing the value, in byte order, each counted once', async () => {
    await capturePersons('dv', [{}, {}]);
    await seedPerson(server, { distinctIds: ['dv-Alpha', 'dv-beta', 'dv-100%'] });
    expect(await values({ key: 'distinct_id', value: 'DV-' })).toEqual(
      ['dv-0', 'dv-1', 'dv-100%', 'dv-Alpha', 'dv-beta'].map((name) => ({ name, count: 1 })),
    );
    expect(await values({ key: 'distinct_id', value: '0%' })).toEqual([{ name: 'dv-100%', count: 1 }]);
  });

  it('answers the first 20 distinct ids of the environment without a value', async () => {
    await seedPerson(server, { distinctIds: Array.from({ length: 25 }, (_, i) => `all-ids-${i}`) });
    const rows = await server.running.ctx.database.db
      .selectFrom('person_distinct_ids')
      .select('distinct_id')
      .where('team_id', '=', server.bootstrap.team.id)
      .execute();
    const sorted = rows.map((r) => r.distinct_id).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(sorted.length).toBeGreaterThan(20);
    expect(await values({ key: 'distinct_id' })).toEqual(sorted.slice(0, 20).map((name) => ({ name, count: 1 })));
  });
});

describe('persons/values/ access', () => {
  it('takes person:read', async () => {
    const key = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['activity_log:read']);
    const res = await server.request(valuesPath({ key: 'plan' }), { key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'person:read'",
      attr: null,
    });
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['person:read']);
    expect((await server.request(valuesPath({ key: 'plan' }), { key: reader })).status).toBe(200);
  });
});

describe('persons/values/ bound', () => {
  it(`reads the newest ${SCANNED_PERSONS} persons that have the property`, { timeout: 120_000 }, async () => {
    // An environment of its own: a hundred thousand persons would slow every other test's query.
    const { team } = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Many persons');
    const batch = (count: number, properties: Record<string, unknown>) =>
      Array.from({ length: count }, () => ({
        uuid: randomUUID(),
        teamId: team.id,
        properties,
        isIdentified: false,
        createdAt: '2025-01-01T00:00:00.000Z',
        version: 0,
      }));
    const { db } = server.running.ctx.database;
    await insertPersons(db, batch(1, { cohort: 'oldest' }));
    for (let i = 0; i < SCANNED_PERSONS; i += 500) await insertPersons(db, batch(500, { cohort: 'newer' }));
    // Newer still, but without the property: they do not take places among the 100,000.
    for (let i = 0; i < 2; i++) await insertPersons(db, batch(500, { unrelated: true }));
    expect(await values({ key: 'cohort' }, team.id)).toEqual([{ name: 'newer', count: SCANNED_PERSONS }]);
  });
});
