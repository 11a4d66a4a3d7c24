/**
 * Group types are the project's: assignments in two environments of one project at once (two
 * workers on PostgreSQL, each its own transaction) must agree, and migration 028 makes agreeing
 * environments share their union while leaving conflicting projects as they were.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { insertOrganization, insertProjectWithTeam, insertTeam } from '../../src/environments/tenancy-store.js';
import { defaultTeamSettings } from '../../src/environments/team-fields.js';
import { generateProjectApiToken } from '../../src/auth/tokens.js';
import { ensureGroupTypeIndex, listGroupTypes, projectsWithConflictingGroupTypes } from '../../src/groups/store.js';
import { processBatch, type BatchDeps } from '../../src/ingestion/worker/batch.js';
import { ConflictRetry } from '../../src/ingestion/worker/conflict-retry.js';
import { DefinitionsCache } from '../../src/ingestion/worker/definitions-step.js';
import { SpikeDetector } from '../../src/ingestion/worker/spike-detector.js';
import { MAX_PROCESSING_ATTEMPTS } from '../../src/ingestion/worker/worker.js';
import { readQueueBatch, type QueueRecord } from '../../src/ingestion/queue-records.js';
import type { QueueRow } from '../../src/ingestion/queue.js';
import { BACKEND, freshStorage, type TestStorage } from '../helpers/backend.js';
import { waitFor } from '../helpers/wait.js';
import { queueRowMaker, serverPerTest } from '../ingestion/worker/helpers.js';
import { databaseBefore } from '../helpers/migrated.js';

const setUp = serverPerTest({ secondHandle: true });
const row = queueRowMaker('2026-03-01T00:00:00.000Z');

async function newEnvironment(database: Database, projectId: number, organizationId: string, name: string) {
  return database.db
    .transaction()
    .execute((trx) =>
      insertTeam(trx, projectId, { organizationId, name, apiToken: generateProjectApiToken(), settings: defaultTeamSettings() }),
    );
}

const pairs = async (database: Database, teamId: number) =>
  (await listGroupTypes(database.db, teamId)).map((t) => [t.groupType, t.groupTypeIndex]);

describe('concurrent group type assignment in one project', () => {
  it('lets the second transaction wait for the first, and reuse its index', async () => {
    const { server, database, second, teamId: a } = await setUp();
    const { organization, project } = server.bootstrap;
    const b = (await newEnvironment(database, project.id, organization.id, 'B')).id;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let assigned: () => void = () => undefined;
    const firstAssigned = new Promise<void>((resolve) => (assigned = resolve));
    const first = database.db.transaction().execute(async (trx) => {
      const index = await ensureGroupTypeIndex(trx, a, 'company');
      assigned();
      await released;
      return index;
    });
    let secondPid: number | undefined;
    let secondDone = false;
    const run = async () => {
      if (BACKEND === 'sqlite') await first; // one writer: the second transaction begins after the first.
      return second.db.transaction().execute(async (trx) => {
        if (BACKEND === 'postgres') secondPid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
        const orgIndex = await ensureGroupTypeIndex(trx, b, 'org');
        const companyIndex = await ensureGroupTypeIndex(trx, b, 'company');
        return { orgIndex, companyIndex };
      });
    };
    await firstAssigned;
    if (BACKEND === 'sqlite') release();
    const later = run().finally(() => (secondDone = true));
    if (BACKEND === 'postgres') {
      // The second has begun and waits on a lock the first holds (or has finished: the test then fails below).
      await waitFor(
        async () =>
          secondDone ||
          (secondPid !== undefined &&
            (
              await sql<{ w: string | null }>`select wait_event_type as w from pg_stat_activity where pid = ${secondPid}`.execute(
                database.db,
              )
            ).rows[0]?.w === 'Lock'),
        { what: 'the second transaction to wait for a lock' },
      );
    }
    release();
    expect(await first).toBe(0);
    expect(await later).toEqual({ orgIndex: 1, companyIndex: 0 });
    const expected = [
      ['company', 0],
      ['org', 1],
    ];
    expect(await pairs(database, a)).toEqual(expected);
    expect(await pairs(database, b)).toEqual(expected);
  });

  it('gives each type one index across the project when two workers bring them at once', async () => {
    const { server, database, second, ingestionQueue, teamId: a } = await setUp();
    const { organization, project } = server.bootstrap;
    const b = (await newEnvironment(database, project.id, organization.id, 'B')).id;
    const log = pino({ level: 'silent' });
    const worker = () => {
      const deps: BatchDeps = {
        spikes: new SpikeDetector(0),
        groupTypes: new Map(),
        definitions: new DefinitionsCache(),
        warnHot: () => {},
      };
      const retry = new ConflictRetry(log, {
        forgetStale: () => {
          deps.groupTypes.clear();
          deps.definitions!.clear();
        },
      });
      return { deps, retry };
    };
    // Opposite orders, one event per batch: every type is wanted by both sides at nearly once.
    const types = ['company', 'org', 'venue', 'team', 'region'];
    const sides: QueueRow[][] = [a, b].map((teamId, side) =>
      (side === 0 ? types : [...types].reverse()).map((type, i) =>
        row(teamId, `${side}-${i}`, '$groupidentify', { $group_type: type, $group_key: `${type}-${side}`, $group_set: {} }),
      ),
    );
    await ingestionQueue.enqueue([...sides[0]!, ...sides[1]!]);
    const records = (await readQueueBatch(database.db, 'realtime', 1000, MAX_PROCESSING_ATTEMPTS)).records;
    const split: QueueRecord[][] = [records.filter((r) => Number(r.team_id) === a), records.filter((r) => Number(r.team_id) === b)];
    expect(split.map((s) => s.length)).toEqual([5, 5]);
    const workers = [worker(), worker()];
    const run = async (w: number, handle: Database) => {
      for (const record of split[w]!) {
        const outcome = await workers[w]!.retry.run(() =>
          handle.db.transaction().execute((trx) => processBatch(trx, 'realtime', [record], workers[w]!.deps)),
        );
        outcome.committed();
      }
    };
    if (BACKEND === 'postgres') await Promise.all([run(0, database), run(1, second)]);
    else for (const w of [0, 1]) await run(w, database);
    const inA = await pairs(database, a);
    expect(inA).toHaveLength(5);
    expect(await pairs(database, b)).toEqual(inA);
    expect(new Set(inA.map(([type]) => type))).toEqual(new Set(types));
    expect(inA.map(([, index]) => index)).toEqual([0, 1, 2, 3, 4]);
    // Each side's groups sit under the project's index of their type.
    const groups = await database.db.selectFrom('groups').select(['team_id', 'group_type_index', 'group_key']).execute();
    const indexOf = new Map(inA.map(([type, index]) => [type as string, index as number]));
    expect(groups).toHaveLength(10);
    for (const g of groups) expect(g.group_type_index, g.group_key).toBe(indexOf.get(g.group_key.split('-')[0]!));
  });
});

let storage: TestStorage | undefined;
let bare: Database | undefined;
afterAll(async () => {
  await bare?.close();
  await storage?.dispose();
});

describe('migration 028-group-types-per-project', () => {
  it('copies the union to every environment of an agreeing project, and leaves a conflicting one', async () => {
    storage = await freshStorage();
    const before = await databaseBefore(storage, '028-group-types-per-project');
    bare = before.database;
    const { db, types, step: at } = before;
    const database = bare;
    const organization = await insertOrganization(database.db, 'Org');
    const project = async (name: string) =>
      database.db.transaction().execute((trx) =>
        insertProjectWithTeam(trx, {
          organizationId: organization.id,
          name,
          apiToken: generateProjectApiToken(),
          settings: defaultTeamSettings(),
        }),
      );
    const agreeing = await project('Agreeing');
    const a1 = agreeing.team.id;
    const a2 = (await newEnvironment(database, agreeing.project.id, organization.id, 'a2')).id;
    const a3 = (await newEnvironment(database, agreeing.project.id, organization.id, 'a3')).id;
    const conflicting = await project('Conflicting');
    const c1 = conflicting.team.id;
    const c2 = (await newEnvironment(database, conflicting.project.id, organization.id, 'c2')).id;
    const alone = (await project('Alone')).team.id;
    const mapping = (team_id: number, group_type: string, group_type_index: number, name_singular: string | null = null) => ({
      team_id,
      group_type,
      group_type_index,
      name_singular,
      name_plural: null,
    });
    await db
      .insertInto('group_type_mappings')
      .values([
        mapping(a1, 'company', 0),
        mapping(a2, 'company', 0, 'Firm'),
        mapping(a2, 'org', 1),
        mapping(c1, 'company', 0),
        mapping(c2, 'org', 0),
        mapping(alone, 'venue', 0),
      ])
      .execute();
    await migrations[at]!.up(db, types);
    const expected = [
      ['company', 0],
      ['org', 1],
    ];
    for (const team of [a1, a2, a3]) expect(await pairs(database, team), `environment ${team}`).toEqual(expected);
    expect((await listGroupTypes(database.db, a3))[0]!.nameSingular).toBe('Firm');
    expect(await pairs(database, c1)).toEqual([['company', 0]]);
    expect(await pairs(database, c2)).toEqual([['org', 0]]);
    expect(await pairs(database, alone)).toEqual([['venue', 0]]);
    expect(await projectsWithConflictingGroupTypes(database.db)).toEqual([conflicting.project.id]);
    // A type new to the conflicting project gets an index free in both of its environments.
    expect(await ensureGroupTypeIndex(database.db, c2, 'team')).toBe(1);
    expect(await pairs(database, c1)).toEqual([
      ['company', 0],
      ['team', 1],
    ]);
    // A type the other environment has under an index taken here gets one free in both.
    expect(await ensureGroupTypeIndex(database.db, c1, 'org')).toBe(2);
    expect(await ensureGroupTypeIndex(database.db, a3, 'venue')).toBe(2);
    for (const team of [a1, a2]) expect((await pairs(database, team)).at(-1)).toEqual(['venue', 2]);
  }, 120_000);
});
