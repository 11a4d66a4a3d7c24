import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createProject } from '../../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { cohortsPath, createFlag, flagsPath, personFilter, storeGroup } from '../../flags/flag-helpers.js';

let server: TestServer;
let baseId: number;
let dependentId: number;
let cohortId: number;

beforeAll(async () => {
  server = await startTestServer();
  await storeGroup(server, 'company', 'acme', {});
  const nested = await server.request(cohortsPath(server), {
    method: 'POST',
    body: { name: 'Germans', filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [personFilter('country', 'DE')] }] } } },
  });
  const outer = await server.request(cohortsPath(server), {
    method: 'POST',
    body: {
      name: 'Pro Germans',
      filters: {
        properties: {
          type: 'AND',
          values: [{ type: 'AND', values: [personFilter('plan', 'pro'), { key: 'id', value: nested.body.id, type: 'cohort' }] }],
        },
      },
    },
  });
  cohortId = outer.body.id;
  const base = await createFlag(server, { key: 'base', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  baseId = base.id;
  const middle = await createFlag(server, {
    key: 'middle',
    filters: { groups: [{ properties: [{ key: String(base.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] },
  });
  const dependent = await createFlag(server, {
    key: 'top',
    filters: { groups: [{ properties: [{ key: String(middle.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] },
  });
  dependentId = dependent.id;
  await createFlag(server, { key: 'cohorted', filters: { groups: [{ properties: [{ key: 'id', value: cohortId, type: 'cohort' }] }] } });
  await createFlag(server, { key: 'inactive', active: false });
  await createFlag(server, { key: 'remote-config', is_remote_configuration: true });
  const gone = await createFlag(server, { key: 'gone' });
  await server.request(flagsPath(server, `${gone.id}/`), { method: 'PATCH', body: { deleted: true } });
});

afterAll(async () => {
  await server?.close();
});

const feed = (path: string, headers: Record<string, string> = {}, key?: string | null) =>
  server.request(path, { key: key === undefined ? server.key : key, headers });

describe('local evaluation feed', () => {
  it('serves PostHog shape on /flags/definitions with cohorts, group types and dependency chains', async () => {
    const res = await feed(`/flags/definitions?token=${server.bootstrap.team.apiToken}&send_cohorts`);
    expect(res.status, res.text).toBe(200);
    // Sorted by key (the remote-configuration flag is left out).
    const keys = res.body.flags.map((f: any) => f.key);
    expect(keys).toEqual(['base', 'cohorted', 'inactive', 'middle', 'top']);
    const top = res.body.flags.find((f: any) => f.key === 'top');
    expect(top).toMatchObject({
      id: dependentId,
      team_id: server.bootstrap.team.id,
      active: true,
      deleted: false,
      version: 1,
      ensure_experience_continuity: false,
      has_encrypted_payloads: false,
      evaluation_runtime: 'all',
      bucketing_identifier: null,
      evaluation_tags: [],
    });
    expect(top.filters.groups[0].properties[0]).toMatchObject({ key: 'middle', dependency_chain: ['base', 'middle'] });
    expect(res.body.flags.find((f: any) => f.key === 'inactive').active).toBe(false);
    expect(res.body.group_type_mapping).toEqual({ '0': 'company' });
    expect(Object.keys(res.body.cohorts).sort()).toEqual([String(cohortId), String(cohortId - 1)].sort());
    expect(res.body.cohorts[String(cohortId)].type).toBe('AND');
    expect(res.headers.get('etag')).toMatch(/^W\/"/);
    expect(baseId).toBeGreaterThan(0);
  });

  it('omits cohorts without send_cohorts', async () => {
    const res = await feed(`/flags/definitions?token=${server.bootstrap.team.apiToken}`);
    expect(res.body.cohorts).toEqual({});
  });

  it('answers 304 to a matching If-None-Match, and a new ETag after a change', async () => {
    const path = `/api/feature_flag/local_evaluation/?token=${server.bootstrap.team.apiToken}&send_cohorts`;
    const first = await feed(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    const again = await feed(path, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    await createFlag(server, { key: 'new-one' });
    const changed = await feed(path, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('is also served under the project', async () => {
    const res = await feed(`/api/projects/${server.bootstrap.team.id}/feature_flags/local_evaluation/?send_cohorts`);
    expect(res.status).toBe(200);
    expect(res.body.flags.map((f: any) => f.key)).toContain('top');
  });

  it('needs a personal API key with feature_flag:read that reaches the project', async () => {
    const path = `/flags/definitions?token=${server.bootstrap.team.apiToken}`;
    expect((await feed(path, {}, null)).status).toBe(401);
    expect((await feed(path, {}, 'phx_invalid')).status).toBe(401);
    const { database } = server.running.ctx;
    const noScope = await createKey(database, server.bootstrap.user.id, ['cohort:read']);
    const denied = await feed(path, {}, noScope);
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe("API key missing required scope 'feature_flag:read'");
    const other = await createProject(database, server.bootstrap.organization.id);
    const elsewhere = await createKey(database, server.bootstrap.user.id, ['feature_flag:read'], [other.team.id]);
    // The Rust service calls a key that does not reach the token's project simply invalid.
    const out = await feed(path, {}, elsewhere);
    expect(out.status).toBe(401);
    expect(out.body).toEqual({
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key is invalid.',
      attr: null,
    });
    const unknownToken = await feed('/flags/definitions?token=phc_unknown');
    expect(unknownToken.status).toBe(401);
  });
});
