/**
 * What the local-evaluation feed carries, as PostHog's builder (products/feature_flags/backend/
 * local_evaluation.py) makes it: per-flag `has_experiment`, the team rollout settings at the top
 * level, remote-configuration flags left out, and (without `send_cohorts`) simple cohorts rewritten into
 * person-property conditions.
 */
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAGS_TOPIC } from '../../../src/flags/service.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
import { cohortsPath, createFlag, createNestedCohort, personFilter } from '../../flags/flag-helpers.js';

let server: TestServer;
let secretId: number;
const ids: Record<string, number> = {};

async function createCohort(name: string, properties: unknown): Promise<number> {
  const res = await server.request(cohortsPath(server), { method: 'POST', body: { name, filters: { properties } } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const cohortCondition = (id: number, rollout: number | null = 100) => ({
  properties: [{ key: 'id', type: 'cohort', value: id }],
  rollout_percentage: rollout,
});

beforeAll(async () => {
  server = await startTestServer();
  // PostHog's own test case (test_local_evaluation_for_cohorts): an OR of one OR of two properties.
  const eitherProp = await createCohort('Either prop', {
    type: 'OR',
    values: [{ type: 'OR', values: [personFilter('$some_prop', 'nomatchihope'), personFilter('$some_prop2', 'nomatchihope2')] }],
  });
  const bothProps = await createCohort('Both props', {
    type: 'AND',
    values: [{ type: 'AND', values: [personFilter('plan', 'pro'), personFilter('country', 'DE')] }],
  });
  const orOfAnds = await createCohort('Or of ands', {
    type: 'OR',
    values: [
      { type: 'AND', values: [personFilter('plan', 'pro'), personFilter('country', 'DE')] },
      { type: 'AND', values: [personFilter('plan', 'enterprise')] },
    ],
  });
  const negated = (await createNestedCohort(server)).id;
  const multivariate = {
    variants: [
      { key: 'a', rollout_percentage: 50 },
      { key: 'b', rollout_percentage: 50 },
    ],
  };
  for (const [key, filters] of Object.entries({
    'either-prop': { groups: [cohortCondition(eitherProp, 20)], multivariate },
    'both-props': { groups: [{ properties: [personFilter('email', 'x')], rollout_percentage: 10 }, cohortCondition(bothProps, 30)] },
    'or-of-ands': { groups: [cohortCondition(orOfAnds)] },
    'negated-cohort': { groups: [cohortCondition(negated)] },
    'two-cohorts': { groups: [cohortCondition(eitherProp), cohortCondition(bothProps)] },
  })) {
    ids[key] = (await createFlag(server, { key, filters })).id;
  }
  // Hoglet cannot encrypt payloads, so the stored flag is marked as PostHog would leave one.
  const secret = await createFlag(server, { key: 'secret-config', is_remote_configuration: true });
  secretId = secret.id;
  await server.running.ctx.database.db
    .updateTable('feature_flags')
    .set({ has_encrypted_payloads: true })
    .where('id', '=', secretId)
    .execute();
  await server.running.ctx.changes.publish({ topic: FLAGS_TOPIC, id: server.bootstrap.team.projectId });
  await createFlag(server, { key: 'plain-config', is_remote_configuration: true });
  await createFlag(server, {
    key: 'needs-secret',
    filters: { groups: [{ properties: [{ key: String(secretId), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const definitions = async (query = '&send_cohorts') => {
  const res = await server.request(`/flags/definitions?token=${server.bootstrap.team.apiToken}${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const flagOf = (feed: any, key: string) => feed.flags.find((f: any) => f.key === key);

describe('local evaluation payload', () => {
  it('carries has_experiment on every flag and the team rollout settings at the top level', async () => {
    for (const feed of [
      await definitions(),
      (await server.request(`/api/feature_flag/local_evaluation/?token=${server.bootstrap.team.apiToken}`)).body,
    ]) {
      expect(Object.keys(feed)).toEqual([
        'flags',
        'group_type_mapping',
        'cohorts',
        'minimal_flag_called_events',
        'property_matching_version',
      ]);
      expect([feed.minimal_flag_called_events, feed.property_matching_version]).toEqual([false, 1]);
      expect(new Set(feed.flags.map((flag: any) => flag.has_experiment))).toEqual(new Set([false]));
    }
  });

  it('leaves out remote-configuration flags, and flags depending on one cannot resolve it', async () => {
    const keys = (await definitions()).flags.map((f: any) => f.key);
    expect({ encrypted: keys.includes('secret-config'), plain: keys.includes('plain-config') }).toEqual({ encrypted: false, plain: false });
    expect(keys).toContain('needs-secret');
    // PostHog's flag_id_to_key only knows served flags: the id stays, with an empty chain.
    expect(flagOf(await definitions(), 'needs-secret').filters.groups[0].properties[0]).toMatchObject({
      key: String(secretId),
      dependency_chain: [],
    });
  });

  it('rewrites a flag on one simple cohort into person conditions when cohorts are not sent', async () => {
    const bare = await definitions('');
    const full = await definitions();
    const groupsOf = (feed: any) => Object.fromEntries(Object.keys(ids).map((key) => [key, flagOf(feed, key).filters.groups]));
    const prop = (key: string, value: string) => ({ key, operator: 'exact', type: 'person', value });
    const multivariateOf = (feed: any) => flagOf(feed, 'either-prop').filters.multivariate;
    expect({ ...groupsOf(bare), multivariate: multivariateOf(bare) }).toEqual({
      'either-prop': [
        { properties: [prop('$some_prop', 'nomatchihope')], rollout_percentage: 20 },
        { properties: [prop('$some_prop2', 'nomatchihope2')], rollout_percentage: 20 },
      ],
      // Conditions without the cohort stay first; the expansion takes the last condition's rollout.
      'both-props': [
        { properties: [personFilter('email', 'x')], rollout_percentage: 10 },
        { properties: [prop('plan', 'pro'), prop('country', 'DE')], rollout_percentage: 30 },
      ],
      'or-of-ands': [
        { properties: [prop('plan', 'pro'), prop('country', 'DE')], rollout_percentage: 100 },
        { properties: [prop('plan', 'enterprise')], rollout_percentage: 100 },
      ],
      // A negation, or more than one cohort, cannot be rewritten: the cohort conditions stay.
      'negated-cohort': flagOf(full, 'negated-cohort').filters.groups,
      'two-cohorts': flagOf(full, 'two-cohorts').filters.groups,
      // Only `groups` is rewritten; the rest of the filters stay.
      multivariate: multivariateOf(full),
    });
  });

  it('lets posthog-node tag locally evaluated $feature_flag_called events with has_experiment', async () => {
    await createFlag(server, { key: 'everyone', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    const events: any[] = [];
    const client = new PostHog(server.bootstrap.team.apiToken, {
      host: server.url,
      personalApiKey: server.key,
      featureFlagsPollingInterval: 60_000,
      flushAt: 1000,
      // Keeps the events in the test instead of sending them.
      before_send: (event) => {
        if (event) events.push(event);
        return null;
      },
    });
    try {
      if (!(await client.waitForLocalEvaluationReady(10_000))) throw new Error('posthog-node could not load the feed');
      expect(await client.getFeatureFlag('everyone', 'user-1', { onlyEvaluateLocally: true })).toBe(true);
      const called = await waitFor(() => events.find((e) => e.event === '$feature_flag_called'), {
        what: 'posthog-node to capture $feature_flag_called',
      });
      expect(called?.properties).toMatchObject({ $feature_flag: 'everyone', locally_evaluated: true, $feature_flag_has_experiment: false });
    } finally {
      await client.shutdown();
    }
  });
});
