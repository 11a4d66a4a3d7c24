import { rawRequest } from '../../helpers/raw-request.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { getCohort, updateCohort } from '../../../src/cohorts/store.js';
import { useTestServer } from '../../helpers/server.js';
import { askFlags, cohortsPath, createFlag, personFilter } from '../../flags/flag-helpers.js';

/**
 * What `/flags` evaluates and reports, as PostHog's flags service does: the caller's runtime
 * (handler/flags.rs detect_evaluation_runtime_from_request, utils/user_agent.rs), the codes of
 * flags failed by a broken cohort (api/errors.rs evaluation_error_code) and the per-flag
 * `metadata.has_experiment` (api/types.rs FlagDetailsMetadata).
 */
const server = useTestServer();

beforeAll(async () => {
  await createFlag(server, { key: 'rt-any', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await createFlag(server, {
    key: 'rt-client',
    evaluation_runtime: 'client',
    filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
  });
  await createFlag(server, {
    key: 'rt-server',
    evaluation_runtime: 'server',
    filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
  });
});

/**
 * POST /flags?v=2 with exactly these headers (fetch would add Sec-Fetch-Mode, a browser-only
 * header), returning the runtime-limited flags it got.
 */
async function runtimeFlags(headers: Record<string, string>, body: Record<string, unknown> = {}): Promise<string[]> {
  const answer = await rawRequest(`${server.url}/flags/?v=2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ api_key: server.token, distinct_id: 'rt', ...body }),
  });
  expect(answer.status, answer.text).toBe(200);
  const keys = Object.keys(JSON.parse(answer.text).flags);
  expect(keys).toContain('rt-any');
  return keys.filter((key) => key === 'rt-client' || key === 'rt-server').sort();
}

const CLIENT = ['rt-client'];
const SERVER = ['rt-server'];
const ALL = ['rt-client', 'rt-server'];
const UNKNOWN: string[] = [];

describe('the caller runtime', () => {
  const byExplicitRuntime: Array<[unknown, Record<string, string>, string[]]> = [
    ['server', { 'user-agent': 'Mozilla/5.0' }, SERVER],
    ['SERVER', { 'user-agent': 'Mozilla/5.0' }, SERVER], // any case
    ['Client', { 'user-agent': 'posthog-node/5.0.0' }, CLIENT],
    ['all', { 'user-agent': 'posthog-node/5.0.0' }, ALL], // every flag
    ['edge', { 'user-agent': 'posthog-node/5.0.0' }, ALL], // an unknown name reads as all
    [null, { 'user-agent': 'posthog-node/5.0.0' }, SERVER], // null: not given
  ];

  it.each(byExplicitRuntime)('evaluation_runtime %j with %j → %j', async (runtime, headers, expected) => {
    expect(await runtimeFlags(headers, { evaluation_runtime: runtime })).toEqual(expected);
  });

  const byHeaders: Array<[Record<string, string>, string[]]> = [
    [{ 'user-agent': 'posthog-python/3.0.0 (Linux; Python 3.11)' }, SERVER],
    [{ 'user-agent': 'posthog-rs/0.3.0' }, SERVER],
    [{ 'user-agent': 'posthog-server/1.0.0' }, SERVER],
    [{ 'user-agent': 'posthog-js/1.200.0' }, CLIENT],
    [{ 'user-agent': 'posthog-react-native/4.0.0' }, CLIENT],
    [{ 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' }, CLIENT],
    [{ 'user-agent': 'Chrome/120.0.0.0' }, CLIENT],
    [{ 'user-agent': 'my-script curl/8.0' }, SERVER], // anywhere, not only first
    [{ 'user-agent': 'python-requests/2.31' }, SERVER],
    [{ 'user-agent': 'posthog-node' }, UNKNOWN], // no version: not an SDK
    [{ 'user-agent': 'posthog-node/' }, UNKNOWN],
    [{ 'user-agent': 'posthog-perl/1.0 Mozilla/5.0' }, UNKNOWN], // an unknown SDK says nothing, its tail neither
    [{ 'user-agent': 'POSTHOG-NODE/5.0.0' }, UNKNOWN], // case-sensitive
    [{ 'user-agent': 'Wget/1.21' }, UNKNOWN],
    [{ 'user-agent': 'axios/1.6.0' }, UNKNOWN],
    [{ 'user-agent': 'Dalvik/2.1.0 (Linux; U; Android 14)' }, UNKNOWN],
    [{ 'user-agent': 'Mozilla/5.0 (Linux) caf\u00e9' }, UNKNOWN], // not visible ASCII: no User-Agent at all
    [{ 'user-agent': 'Mozilla/5.0 (Linux) caf\u00e9', origin: 'https://shop.example' }, CLIENT],
    [{}, UNKNOWN], // no signal: only flags for every runtime
    [{ origin: 'https://shop.example' }, CLIENT],
    [{ referer: '' }, CLIENT], // present, even empty
    [{ 'sec-fetch-site': 'cross-site' }, CLIENT],
    [{ 'user-agent': 'mystery/1.0', 'sec-fetch-mode': 'cors' }, CLIENT],
    [{ 'user-agent': 'posthog-go/1.2.0', origin: 'https://shop.example' }, SERVER], // the agent first
  ];

  it.each(byHeaders)('%j → %j', async (headers, expected) => {
    expect(await runtimeFlags(headers)).toEqual(expected);
  });
});

describe('flags failed by a broken cohort', () => {
  const cohortFlag = (key: string, id: number) =>
    createFlag(server, { key, filters: { groups: [{ properties: [{ key: 'id', value: id, type: 'cohort' }], rollout_percentage: 100 }] } });
  const createCohort = async (name: string, values: unknown[]) => {
    const res = await server.request(cohortsPath(server), {
      method: 'POST',
      body: { name, filters: { properties: { type: 'AND', values } } },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as number;
  };

  it('are reported under PostHog codes and descriptions, in the detailed body of both paths', async () => {
    const missing = await createCohort('Soon gone', [{ type: 'AND', values: [personFilter('plan', 'pro')] }]);
    await cohortFlag('missing-cohort', missing);
    await server.request(cohortsPath(server, `${missing}/`), { method: 'PATCH', body: { deleted: true } });

    // A loop the API refuses to make, written straight to storage: a → b → a.
    const a = await createCohort('Loop a', [{ type: 'AND', values: [personFilter('plan', 'pro')] }]);
    const b = await createCohort('Loop b', [{ type: 'AND', values: [{ key: 'id', type: 'cohort', value: a }] }]);
    await cohortFlag('cyclic-cohort', b);
    const { db } = server.running.ctx.database;
    const stored = (await getCohort(db, server.bootstrap.project.id, a))!;
    await updateCohort(db, stored, {
      filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [{ key: 'id', type: 'cohort', value: b }] }] } },
    });
    await createFlag(server, { key: 'after-the-loop' }); // a flag change drops the cached definitions

    for (const path of ['/flags/?v=2', '/decide/?v=4']) {
      const body = await askFlags(server, path, { distinct_id: 'c', person_properties: { plan: 'pro' } });
      expect(body.errorsWhileComputingFlags).toBe(true);
      expect(body.flags['missing-cohort'], path).toMatchObject({
        enabled: false,
        failed: true,
        reason: { code: 'dependency_not_found_cohort', condition_index: null, description: 'Cohort dependency not found' },
      });
      expect(body.flags['cyclic-cohort'], path).toMatchObject({
        enabled: false,
        failed: true,
        reason: { code: 'dependency_cycle_cohort', condition_index: null, description: 'Cohort dependency cycle detected' },
      });
      expect(body.flags['rt-any'].enabled).toBe(true);
    }
  });
});

describe('metadata.has_experiment', () => {
  it('is false on every flag of the detailed body, failed ones included', async () => {
    for (const path of ['/flags/?v=2', '/decide/?v=4', '/flags/']) {
      const body = await askFlags(server, path, { distinct_id: 'x' }, { 'user-agent': 'posthog-node/5.0.0' });
      const flags = Object.values(body.flags) as Array<{ metadata: Record<string, unknown> }>;
      expect(flags.length).toBeGreaterThan(0);
      for (const flag of flags)
        expect(Object.keys(flag.metadata), path).toEqual(['id', 'version', 'description', 'payload', 'has_experiment']);
      for (const flag of flags) expect(flag.metadata.has_experiment).toBe(false);
    }
  });
});
