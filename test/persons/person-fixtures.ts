import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { insertPerson } from '../../src/persons/store.js';
import { ch, raw } from '../../src/platform/analytics/sql.js';
import type { TestServer } from '../helpers/server.js';

export interface SeededPerson {
  id: number;
  uuid: string;
}

/**
 * Stores a person as ingestion leaves one (its distinct ids in the given order, the creation time
 * chosen), so list order and ties are under the test's control; the API is then read over HTTP.
 */
export async function seedPerson(
  server: TestServer,
  person: { distinctIds: string[]; properties?: Record<string, unknown>; createdAt?: string; uuid?: string },
): Promise<SeededPerson> {
  const created = await insertPerson(
    server.running.ctx.database.db,
    {
      uuid: person.uuid ?? randomUUID(),
      teamId: server.bootstrap.team.id,
      properties: person.properties ?? {},
      isIdentified: false,
      createdAt: person.createdAt ?? '2025-01-01T00:00:00.000Z',
    },
    person.distinctIds,
  );
  return { id: created.id, uuid: created.uuid };
}

export const personsPath = (server: TestServer, suffix = '') => `/api/environments/${server.bootstrap.team.id}/persons/${suffix}`;

/** GET the persons list with these query parameters; fails the test unless it answers 200. */
export async function listPersons(server: TestServer, params: Record<string, string>): Promise<any> {
  const res = await server.request(personsPath(server, `?${new URLSearchParams(params)}`));
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The first distinct id of each listed person, sorted: which persons a filter selected. */
export async function selected(server: TestServer, properties: unknown[], extra: Record<string, string> = {}): Promise<string[]> {
  const body = await listPersons(server, { properties: JSON.stringify(properties), ...extra });
  expect(body.count).toBe(body.results.length);
  return body.results.map((p: any) => p.distinct_ids[0]).sort();
}

/** Stored events of a distinct id (read from ClickHouse: the events API is not what is under test). */
export async function storedEventCount(server: TestServer, distinctId: string): Promise<number> {
  const { analytics } = server.running.ctx;
  const { sql, params } = ch`SELECT count() AS n FROM ${raw(analytics.table('events'))}
    WHERE team_id = ${server.bootstrap.team.id} AND distinct_id = ${distinctId}`.compile();
  return (await analytics.query<{ n: number }>(sql, params))[0]?.n ?? 0;
}
