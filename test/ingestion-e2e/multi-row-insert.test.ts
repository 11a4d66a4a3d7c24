import { afterAll, describe, expect, it } from 'vitest';
import { InListQuery, padInList } from '../../src/db/multi-row-insert.js';
import { insertPersons } from '../../src/persons/store.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The worker's precompiled statements, on whichever backend the suite runs. */
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

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
    const server = await startTestServer({ INGESTION_WORKER: 'off' });
    servers.push(server);
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

    const byIds = new InListQuery((d: typeof db, [team]: [number], list: number[]) => d.selectFrom('persons').select(['id', 'uuid']).where('team_id', '=', team).where('id', 'in', list), 7);
    const wanted = [...ids.values()].filter((_, i) => i % 12 === 0); // 21 ids: chunks of 7, 7, 7
    for (const list of [wanted, wanted.slice(0, 5), wanted.slice(0, 1)]) {
      const rows = await byIds.execute(db, [teamId], list);
      expect(rows.map((r) => Number(r.id)).sort((x, y) => x - y)).toEqual([...list].sort((x, y) => x - y));
    }
    expect(await byIds.execute(db, [teamId + 1000], wanted)).toEqual([]);
  }, 60_000);
});
