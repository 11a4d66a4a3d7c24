import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { toJson } from '../../src/platform/db/values.js';
import { ensureGroupTypeIndex } from '../../src/groups/store.js';
import { insertPerson } from '../../src/persons/store.js';
import type { TestServer } from '../helpers/server.js';

export function flagsPath(server: TestServer, suffix = ''): string {
  return `/api/projects/${server.bootstrap.team.id}/feature_flags/${suffix}`;
}

/** PATCH /feature_flags/:id/ with `body`. */
export function patchFlag(server: TestServer, id: number, body: unknown) {
  return server.request(flagsPath(server, `${id}/`), { method: 'PATCH', body });
}

export function cohortsPath(server: TestServer, suffix = ''): string {
  return `/api/projects/${server.bootstrap.team.id}/cohorts/${suffix}`;
}

/** Creates a flag through the API and returns its body (fails the test on anything but 201). */
export async function createFlag(server: TestServer, body: Record<string, unknown>): Promise<any> {
  const res = await server.request(flagsPath(server), { method: 'POST', body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/**
 * Creates, through the API, the cohort "Enterprise or real Germans": plan `enterprise`, or country
 * `DE` with an e-mail not containing `test.io` (nested AND/OR groups with a negation). Returns its
 * body (fails the test on anything but 201).
 */
export async function createNestedCohort(server: TestServer): Promise<any> {
  const res = await server.request(cohortsPath(server), {
    method: 'POST',
    body: {
      name: 'Enterprise or real Germans',
      filters: {
        properties: {
          type: 'OR',
          values: [
            { type: 'AND', values: [personFilter('plan', 'enterprise')] },
            { type: 'AND', values: [personFilter('country', 'DE'), { ...personFilter('email', 'test.io', 'icontains'), negation: true }] },
          ],
        },
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A person stored as ingestion would have left it. */
export async function storePerson(
  server: TestServer,
  distinctIds: string[],
  properties: Record<string, unknown> = {},
  createdAt = new Date().toISOString(),
) {
  return insertPerson(
    server.running.ctx.database.db,
    { uuid: randomUUID(), teamId: server.bootstrap.team.id, properties, isIdentified: true, createdAt },
    distinctIds,
  );
}

export async function storeGroup(server: TestServer, groupType: string, groupKey: string, properties: Record<string, unknown>) {
  const { db } = server.running.ctx.database;
  const teamId = server.bootstrap.team.id;
  const index = await ensureGroupTypeIndex(db, teamId, groupType);
  await db
    .insertInto('groups')
    .values({
      team_id: teamId,
      group_type_index: index!,
      group_key: groupKey,
      group_properties: toJson(properties),
      created_at: new Date().toISOString(),
      version: 0,
    })
    .execute();
  return index!;
}

/** POSTs a flags request to `/decide` or `/flags` with the project token. */
export async function askFlags(
  server: TestServer,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await server.request(path, {
    method: 'POST',
    key: null,
    body: { api_key: server.bootstrap.team.apiToken, ...body },
    headers,
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export function personFilter(key: string, value: unknown, operator = 'exact') {
  return { key, value, operator, type: 'person' };
}
