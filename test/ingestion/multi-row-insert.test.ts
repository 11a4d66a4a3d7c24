import { describe, expect, it } from 'vitest';
import {
  InListQuery,
  MultiRowInsert,
  POSTGRES_ROWS_PER_INSERT,
  ROWS_PER_INSERT,
  padInList,
} from '../../src/platform/db/multi-row-insert.js';
import { insertDistinctIds, insertPersons } from '../../src/persons/batch-store.js';
import { distinctIdsOf } from '../../src/persons/store.js';
import { useTestServer } from '../helpers/server.js';
import { BACKEND } from '../helpers/backend.js';

/** The worker's precompiled statements, on whichever backend the suite runs. */
const server = useTestServer({ INGESTION_WORKER: 'off' });

describe('padInList', () => {
  it('pads to the next power of two (at most max) with the first value, and leaves other lists alone', () => {
    expect(padInList([], 8)).toEqual([]);
    expect(padInList(['a'], 8)).toEqual(['a']);
    expect(padInList(['a', 'b', 'c'], 8)).toEqual(['a', 'b', 'c', 'a']);
    expect(padInList([1, 2, 3, 4, 5, 6], 7)).toEqual([1, 2, 3, 4, 5, 6, 1]);
    expect(padInList([1, 2, 3, 4], 8)).toEqual([1, 2, 3, 4]);
    expect(padInList([1, 2, 3, 4, 5, 6, 7, 8, 9], 8)).toHaveLength(9);
  });
});

describe('InListQuery and MultiRowInsert with returning', () => {
  it('inserts 250 persons in several statements and reads exactly the asked ones back in chunks', async () => {
    const { db } = server.running.ctx.database;
    const teamId = server.bootstrap.team.id;
    const persons = Array.from({ length: 250 }, (_, i) => ({
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      teamId,
      properties: { i },
      isIdentified: i % 2 === 0,
      createdAt: '2026-01-01T00:00:00.000Z',
      version: 0,
    }));
    const ids = await insertPersons(db, persons);
    expect(ids.size).toBe(250);
    expect(new Set(ids.values()).size).toBe(250);

    const byIds = new InListQuery(
      (d: typeof db, [team]: [number], list: number[]) =>
        d.selectFrom('persons').select(['id', 'uuid']).where('team_id', '=', team).where('id', 'in', list),
      7,
    );
    const wanted = [...ids.values()].filter((_, i) => i % 12 === 0); // 21 ids: chunks of 7, 7, 7
    for (const list of [wanted, wanted.slice(0, 5), wanted.slice(0, 1)]) {
      const rows = await byIds.execute(db, [teamId], list);
      expect(rows.map((r) => Number(r.id)).sort((x, y) => x - y)).toEqual([...list].sort((x, y) => x - y));
    }
    expect(await byIds.execute(db, [teamId + 1000], wanted)).toEqual([]);
  }, 60_000);
});

describe('InListQuery on long lists', () => {
  it('reads a list of over a thousand values exactly, in one statement per thousand on PostgreSQL', async () => {
    const { db } = server.running.ctx.database;
    // A team of its own: the other tests here count the environment's event uuids.
    const teamId = server.bootstrap.team.id + 1000;
    const insert = new MultiRowInsert('event_uuids', ['team_id', 'uuid', 'stored_day']);
    const uuid = (i: number) => `00000000-0000-4000-a000-${String(i).padStart(12, '0')}`;
    // Every third of 1,205 uuids is stored; the query is asked for all of them.
    const asked = Array.from({ length: 1205 }, (_, i) => uuid(i));
    const stored = asked.filter((_, i) => i % 3 === 0);
    await insert.execute(
      db,
      stored.map((u) => [teamId, u, 20_000]),
    );
    let statements = 0;
    const counted = db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements++;
        return args.result;
      },
    });
    const query = new InListQuery(
      (d: typeof db, [team]: [number], list: string[]) =>
        d.selectFrom('event_uuids').select('uuid').where('team_id', '=', team).where('uuid', 'in', list),
      500,
    );
    const rows = await query.execute(counted, [teamId], asked);
    expect(rows.map((r) => r.uuid).sort()).toEqual(stored);
    // 500 values a statement on SQLite; a worker batch's thousand in one round trip on PostgreSQL.
    expect(statements).toBe(BACKEND === 'postgres' ? 2 : 3);
  }, 60_000);
});

describe('MultiRowInsert without returning', () => {
  it("inserts flat values in one statement or several, and row arrays, leaving the caller's arrays as they were", async () => {
    const { db } = server.running.ctx.database;
    const teamId = server.bootstrap.team.id;
    const insert = new MultiRowInsert('ingestion_warnings', ['team_id', 'type', 'source', 'details', 'timestamp']);
    const flat = (type: string, n: number) =>
      Array.from({ length: n }, (_, i) => [teamId, type, 'test', JSON.stringify({ i }), '2026-01-01T00:00:00.000Z']).flat();
    const stored = async (type: string) =>
      (await db.selectFrom('ingestion_warnings').select('details').where('type', '=', type).orderBy('id').execute()).map((r) =>
        typeof r.details === 'string' ? JSON.parse(r.details) : r.details,
      );

    for (const [type, n] of [
      ['one statement', 3],
      ['several statements', ROWS_PER_INSERT * 2 + 5],
      // On PostgreSQL a statement takes up to a thousand rows, its SQL built without the builder.
      ['several PostgreSQL statements', POSTGRES_ROWS_PER_INSERT + 5],
    ] as const) {
      const values = flat(type, n);
      await insert.executeFlat(db, values, n);
      expect(await stored(type)).toEqual(Array.from({ length: n }, (_, i) => ({ i })));
      expect(Object.isFrozen(values)).toBe(false);
      values.length = 0; // the worker reuses its array this way after each batch
    }
    await expect(insert.executeFlat(db, flat('short', 2), 3)).rejects.toThrow('expected 15 values, got 10');

    const rows = Array.from({ length: ROWS_PER_INSERT + 1 }, (_, i) => [
      teamId,
      'rows',
      'test',
      JSON.stringify({ i }),
      '2026-01-01T00:00:00.000Z',
    ]);
    expect(await insert.execute(db, rows)).toEqual([]);
    expect(await stored('rows')).toEqual(rows.map((_, i) => ({ i })));
    expect(rows.every((r) => !Object.isFrozen(r) && r.length === 5)).toBe(true);
    await expect(insert.execute(db, [[teamId, 'bad', 'test', '{}']])).rejects.toThrow('expected 5 values in row 0, got 4');
  }, 60_000);
});

describe('MultiRowInsert ignoring conflicts', () => {
  it('skips the rows already stored in a statement of more than a hundred rows, keeping the others', async () => {
    const { db } = server.running.ctx.database;
    const teamId = server.bootstrap.team.id;
    const insert = new MultiRowInsert('event_uuids', ['team_id', 'uuid', 'stored_day'], { ignoreConflicts: true });
    const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => [teamId, uuid(from + k), 20_000]);
    await insert.execute(db, rows(0, 150));
    await insert.execute(db, rows(100, POSTGRES_ROWS_PER_INSERT + 20));
    const stored = await db.selectFrom('event_uuids').select('uuid').where('team_id', '=', teamId).orderBy('uuid').execute();
    expect(stored.map((r) => r.uuid)).toEqual(Array.from({ length: POSTGRES_ROWS_PER_INSERT + 20 }, (_, i) => uuid(i)));
  }, 60_000);
});

describe('distinctIdsOf', () => {
  it('reads the distinct ids of more persons than either backend takes parameters in one statement', async () => {
    // A persons page of any size (list endpoints have no maximum limit) asks for all its persons.
    const { db } = server.running.ctx.database;
    const teamId = server.bootstrap.team.id;
    const ids = await insertPersons(
      db,
      [0, 1, 2].map((i) => ({
        uuid: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`,
        teamId,
        properties: {},
        isIdentified: false,
        createdAt: '2026-01-01T00:00:00.000Z',
        version: 0,
      })),
    );
    const [a, b, c] = [...ids.values()];
    await insertDistinctIds(db, [
      { teamId, distinctId: 'many-a1', personId: a! },
      { teamId, distinctId: 'many-a2', personId: a! },
      { teamId, distinctId: 'many-c', personId: c! },
    ]);
    // 70,000 ids, most of them no person's: over SQLite's 32,766 and PostgreSQL's 65,535.
    const asked = [a!, ...Array.from({ length: 70_000 }, (_, i) => 10_000_000 + i), b!, c!];
    const found = await distinctIdsOf(db, asked);
    expect(Object.fromEntries([...found].map(([id, list]) => [id, [...list].sort()]))).toEqual({
      [a!]: ['many-a1', 'many-a2'],
      [c!]: ['many-c'],
    });
  });
});
