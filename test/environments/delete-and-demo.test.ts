import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamOwnedTables } from '../../src/deletions/store.js';
import { ch, raw } from '../../src/platform/analytics/sql.js';
import { createKey } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** The environment's rows in each SQL table, and in ClickHouse's (`clickhouse.<table>`). */
async function countsByTable(teamId: number): Promise<Record<string, number>> {
  const { database, analytics } = server.running.ctx;
  const counts: Record<string, number> = {};
  for (const table of await teamOwnedTables(database)) {
    const row = await (database.db as Kysely<any>)
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  for (const table of ['events', 'sessions', 'person_overrides']) {
    const query = ch`SELECT count() AS n FROM ${raw(analytics.table(table))} WHERE team_id = ${teamId}`.compile();
    counts[`clickhouse.${table}`] = (await analytics.query<{ n: number }>(query.sql, query.params))[0]!.n;
  }
  return counts;
}

const DEFINITION_TABLES = ['event_definitions', 'property_definitions', 'event_properties'] as const;

/** The project's definitions (each table's rows, by project). */
async function definitionsOfProject(projectId: number): Promise<Record<string, number>> {
  const { db } = server.running.ctx.database;
  const counts: Record<string, number> = {};
  for (const table of DEFINITION_TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

async function fill(env: { id: number; api_token: string }, prefix: string) {
  const batch = [
    { event: '$pageview', properties: { distinct_id: `${prefix}-1`, $session_id: `${prefix}-session`, $set: { email: `${prefix}@x.io` } } },
    { event: '$identify', properties: { distinct_id: `${prefix}-2`, $anon_distinct_id: `${prefix}-1` } },
    { event: '$groupidentify', properties: { distinct_id: `${prefix}-2`, $group_type: 'org', $group_key: prefix, $group_set: { a: 1 } } },
    { event: 'bad' },
  ];
  const res = await fetch(`${server.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: env.api_token, batch }),
  });
  expect(res.status).toBe(200);
  await server.request(`/api/environments/${env.id}/`, { method: 'PATCH', body: { timezone: 'Europe/Paris' } });
  await server.request(`/api/environments/${env.id}/add_product_intent/`, { method: 'PATCH', body: { product_type: 'product_analytics' } });
}

describe('deleting an environment', () => {
  it('leaves no row of it behind and the other environment untouched', async () => {
    const projectId = server.bootstrap.project.id;
    const created = await server.request(`/api/projects/${projectId}/environments/`, { method: 'POST', body: { name: 'Doomed' } });
    const doomed = created.body;
    const kept = { id: server.bootstrap.team.id, api_token: server.bootstrap.team.apiToken };
    await fill(doomed, 'doomed');
    await fill(kept, 'kept');
    await server.settle();
    const { database } = server.running.ctx;
    const onlyDoomed = await createKey(database, server.bootstrap.user.id, ['*'], [doomed.id]);
    const both = await createKey(database, server.bootstrap.user.id, ['*'], [doomed.id, kept.id]);

    const doomedBefore = await countsByTable(doomed.id);
    const keptBefore = await countsByTable(kept.id);
    const projectDefinitionsBefore = await definitionsOfProject(projectId);
    // Its events came first: it made the project's definitions of their names.
    expect(doomedBefore.event_definitions).toBeGreaterThan(0);
    for (const table of [
      'clickhouse.events',
      'clickhouse.sessions',
      'event_uuids',
      'persons',
      'person_distinct_ids',
      'groups',
      'group_type_mappings',
      'ingestion_warnings',
      'activity_log',
      'product_intents',
    ]) {
      expect(doomedBefore[table], table).toBeGreaterThan(0);
    }

    const res = await server.request(`/api/projects/${projectId}/environments/${doomed.id}/`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // The environment is gone at once; its data goes in the background (deletions/runner.ts).
    expect(await database.db.selectFrom('teams').select('id').where('id', '=', doomed.id).executeTakeFirst()).toBeUndefined();
    await server.running.deletions!.drain();
    expect(await database.db.selectFrom('background_deletions').selectAll().execute()).toEqual([]);
    // The old name is gone (migration 013): a runner of an older version finds nothing to take.
    await expect(sql`select count(*) from pending_deletions`.execute(database.db)).rejects.toThrow();

    const doomedAfter = await countsByTable(doomed.id);
    expect(
      Object.values(doomedAfter).every((n) => n === 0),
      JSON.stringify(doomedAfter),
    ).toBe(true);
    // The project's definitions stay: the rows the deleted environment made first now name the one kept.
    const keptAfter = await countsByTable(kept.id);
    for (const table of DEFINITION_TABLES) {
      expect(keptAfter[table], table).toBe(keptBefore[table]! + doomedBefore[table]!);
      delete keptAfter[table];
      delete keptBefore[table];
    }
    expect(keptAfter).toEqual(keptBefore);
    expect(await definitionsOfProject(projectId)).toEqual(projectDefinitionsBefore);
    expect(await database.db.selectFrom('teams').select('id').where('id', '=', doomed.id).executeTakeFirst()).toBeUndefined();

    // A key limited to the deleted environment is gone; one limited to both keeps the other.
    expect((await server.request('/api/projects/', { key: onlyDoomed })).status).toBe(401);
    const stillWorks = await server.request(`/api/projects/${kept.id}/`, { key: both });
    expect(stillWorks.status).toBe(200);

    // Its token no longer captures, its URLs are gone, and deleting again is a clean 404.
    const capture = await fetch(`${server.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: doomed.api_token, event: 'e', distinct_id: 'd' }),
    });
    expect(capture.status).toBe(401);
    expect((await server.request(`/api/environments/${doomed.id}/activity/`)).status).toBe(404);
    expect((await server.request(`/api/environments/${doomed.id}/`, { method: 'DELETE' })).status).toBe(404);
    expect((await server.request(`/api/environments/${kept.id}/events/`)).body.results.length).toBeGreaterThan(0);
  });

  it("refuses to delete a project's first environment while others exist, and deletes a lone one with its project", async () => {
    const projectId = server.bootstrap.project.id;
    const other = await server.request(`/api/projects/${projectId}/environments/`, { method: 'POST', body: { name: 'Other' } });
    const refused = await server.request(`/api/environments/${projectId}/`, { method: 'DELETE' });
    expect(refused.status).toBe(400);
    await server.request(`/api/environments/${other.body.id}/`, { method: 'DELETE' });

    const { createProject } = await import('../helpers/fixtures.js');
    const lone = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Lone');
    expect((await server.request(`/api/environments/${lone.team.id}/`, { method: 'DELETE' })).status).toBe(204);
    expect((await server.request(`/api/projects/${lone.project.id}/`)).status).toBe(404);
    const projects = await server.request('/api/projects/');
    expect(projects.body.results.map((p: any) => p.id)).not.toContain(lone.project.id);
  });
});

describe('is_demo', () => {
  it('fills the environment with a month of demo data in the background', async () => {
    // Hold the worker so generation cannot finish before we look: it must say true meanwhile.
    const worker = server.running.worker!;
    await worker.stop();
    const created = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
      method: 'POST',
      body: { name: 'Demo', is_demo: true },
    });
    expect(created.status).toBe(201);
    expect(created.body.is_demo).toBe(true);
    const id = created.body.id;
    const generating = async () => (await server.request(`/api/environments/${id}/is_generating_demo_data/`)).body.is_generating_demo_data;
    expect(await generating()).toBe(true);
    // Past every step before the wait for the worker (events queued, recording stored, flag made
    // last): the generator is now waiting for the held worker, and must still say true.
    const { db } = server.running.ctx.database;
    const flag = () => db.selectFrom('feature_flags').select('id').where('key', '=', `demo-${id}-new-checkout`).executeTakeFirst();
    await waitFor(flag, { what: 'the demo generator to make its flag, its last step before it waits for the worker' });
    expect(await generating()).toBe(true);
    worker.start();
    await waitFor(generating, { what: 'the demo data generation to finish', until: (value) => value === false });
    const counts = await countsByTable(id);
    expect(counts['clickhouse.events']).toBeGreaterThan(1000);
    expect(counts.persons).toBeGreaterThan(50);
    expect(counts.groups).toBeGreaterThan(0);
    const events = await server.request(`/api/environments/${id}/events/?event=%24pageview&limit=1000`);
    const times = events.body.results.map((e: any) => Date.parse(e.timestamp));
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(20 * 86_400_000);
    expect((await server.request(`/api/environments/${id}/`)).body.ingested_event).toBe(true);
    const recordings = await server.request(`/api/environments/${id}/session_recordings/?date_from=-7d`);
    expect(recordings.body.results).toHaveLength(1);
    expect(recordings.body.results[0]).toMatchObject({
      click_count: 3,
      console_log_count: 1,
      start_url: 'https://demo.hoglet.dev/pricing',
    });
    const flags = await server.request(`/api/projects/${server.bootstrap.project.id}/feature_flags/?search=demo-${id}`);
    expect(flags.body.results.map((f: any) => f.key)).toEqual([`demo-${id}-new-checkout`]);

    // Web analytics has something in every table: devices, systems, channels, and some bounces.
    const web = async (query: Record<string, unknown>) => {
      const res = await server.request(`/api/environments/${id}/query/`, {
        method: 'POST',
        body: { query: { ...query, dateRange: { date_from: '-30d' }, properties: [] } },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.results;
    };
    const bounceRate = (await web({ kind: 'WebOverviewQuery' })).find((r: any) => r.key === 'bounce rate').value;
    expect(bounceRate).toBeGreaterThan(0);
    expect(bounceRate).toBeLessThan(100);
    const rowsOf = async (breakdownBy: string) => (await web({ kind: 'WebStatsTableQuery', breakdownBy })).map((r: any) => r[0]);
    expect(await rowsOf('DeviceType')).toEqual(expect.arrayContaining(['Desktop', 'Mobile', 'Tablet']));
    expect(await rowsOf('OS')).toEqual(expect.arrayContaining(['Windows', 'Mac OS X', 'iOS', 'Android']));
    expect(await rowsOf('InitialChannelType')).toEqual(expect.arrayContaining(['Direct', 'Organic Search', 'Email', 'Organic Social']));
    expect(await rowsOf('InitialReferringDomain')).toEqual(expect.arrayContaining(['www.google.com', 't.co']));
    // The recording's session has its own events, listed beside the player.
    const sessionEvents = await server.request(
      `/api/environments/${id}/events/?properties=${encodeURIComponent(
        JSON.stringify([{ key: '$session_id', value: recordings.body.results[0].id, operator: 'exact', type: 'event' }]),
      )}`,
    );
    expect(sessionEvents.body.results.map((e: any) => e.event)).toEqual(['$pageview']);
  });
});
