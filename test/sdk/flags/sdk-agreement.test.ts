import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { askFlags, createFlag, createNestedCohort, personFilter, storeGroup } from '../../flags/flag-helpers.js';

/**
 * Flags created through the API must evaluate the same through `/decide?v=3`, `/flags?v=2`, the
 * real posthog-node client asking the server, and posthog-node evaluating locally from the feed
 * fetched with a personal API key.
 */
let server: TestServer;
let remote: PostHog;
let local: PostHog;

const PLANS = ['free', 'pro', 'enterprise'];
const COUNTRIES = ['US', 'DE', 'FR'];
const TIERS = ['gold', 'silver'];

function subject(i: number) {
  return {
    distinctId: `user-${i}`,
    personProperties: {
      plan: PLANS[i % 3]!,
      age: 18 + ((i * 7) % 53),
      email: `user${i}@${i % 4 === 0 ? 'test.io' : 'example.com'}`,
      country: COUNTRIES[(i * 5) % 3]!,
    },
    groups: { company: `company-${i % 11}` },
    groupProperties: { company: { tier: TIERS[i % 2]! } },
  };
}

beforeAll(async () => {
  server = await startTestServer();
  await storeGroup(server, 'company', 'company-0', { tier: 'gold' });
  const cohort = await createNestedCohort(server);

  const rollout = await createFlag(server, { key: 'rollout-45', filters: { groups: [{ properties: [], rollout_percentage: 45 }] } });
  await createFlag(server, {
    key: 'multivariate-flag',
    filters: {
      groups: [{ properties: [], rollout_percentage: 55 }],
      multivariate: {
        variants: [
          { key: 'first-variant', rollout_percentage: 50 },
          { key: 'second-variant', rollout_percentage: 20 },
          { key: 'third-variant', rollout_percentage: 20 },
          { key: 'fourth-variant', rollout_percentage: 5 },
          { key: 'fifth-variant', rollout_percentage: 5 },
        ],
      },
      payloads: { 'first-variant': { color: 'blue' } },
    },
  });
  await createFlag(server, {
    key: 'paid-plans',
    filters: { groups: [{ properties: [personFilter('plan', ['pro', 'enterprise'])], rollout_percentage: 80 }] },
  });
  await createFlag(server, {
    key: 'older-example',
    filters: {
      groups: [{ properties: [personFilter('age', '30', 'gt'), personFilter('email', 'EXAMPLE', 'icontains')], rollout_percentage: 100 }],
    },
  });
  await createFlag(server, {
    key: 'layout',
    filters: {
      groups: [
        { properties: [personFilter('country', 'DE')], rollout_percentage: 100, variant: 'test' },
        { properties: [], rollout_percentage: 50 },
      ],
      multivariate: {
        variants: [
          { key: 'control', rollout_percentage: 50 },
          { key: 'test', rollout_percentage: 50 },
        ],
      },
    },
  });
  await createFlag(server, {
    key: 'cohort-flag',
    filters: { groups: [{ properties: [{ key: 'id', value: cohort.id, type: 'cohort' }], rollout_percentage: 100 }] },
  });
  await createFlag(server, {
    key: 'dependent',
    filters: {
      groups: [
        {
          properties: [
            { key: String(rollout.id), value: true, type: 'flag', operator: 'flag_evaluates_to' },
            personFilter('plan', 'free', 'is_not'),
          ],
          rollout_percentage: 100,
        },
      ],
    },
  });
  await createFlag(server, {
    key: 'gold-companies',
    filters: {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 0 }], rollout_percentage: 70 }],
    },
  });
  await createFlag(server, {
    key: 'regex-flag',
    filters: { groups: [{ properties: [personFilter('email', '^user1', 'regex')], rollout_percentage: 100 }] },
  });
  await createFlag(server, {
    key: 'with-payload',
    filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"a":1}' } },
  });
  await createFlag(server, { key: 'disabled', active: false });

  const token = server.bootstrap.team.apiToken;
  remote = new PostHog(token, { host: server.url, flushAt: 1000, fetchRetryCount: 0 });
  local = new PostHog(token, { host: server.url, personalApiKey: server.key, featureFlagsPollingInterval: 60_000, flushAt: 1000 });
  expect(await local.waitForLocalEvaluationReady(10_000)).toBe(true);
}, 60_000);

afterAll(async () => {
  await remote?.shutdown();
  await local?.shutdown();
  await server?.close();
});

describe('decide, flags and posthog-node agree', () => {
  it('for 300 distinct ids and property sets', async () => {
    let enabledSomewhere = 0;
    for (let i = 0; i < 300; i++) {
      const s = subject(i);
      const request = {
        distinct_id: s.distinctId,
        person_properties: s.personProperties,
        groups: s.groups,
        group_properties: s.groupProperties,
      };
      const decide = (await askFlags(server, '/decide/?v=3', request)).featureFlags;
      const detailed = (await askFlags(server, '/flags/?v=2', request)).flags;
      const flags = Object.fromEntries(
        Object.entries(detailed).map(([key, d]: [string, any]) => [key, d.enabled ? (d.variant ?? true) : false]),
      );
      const options = { personProperties: s.personProperties, groups: s.groups, groupProperties: s.groupProperties };
      const viaServer = await remote.getAllFlags(s.distinctId, options);
      const viaLocal = await local.getAllFlags(s.distinctId, { ...options, onlyEvaluateLocally: true });

      expect(Object.keys(decide).sort()).toHaveLength(10);
      expect(flags, s.distinctId).toEqual(decide);
      expect(viaServer, s.distinctId).toEqual(decide);
      // The feed carries inactive flags (active: false), which the SDK reports as false; the server omits them.
      const { disabled, ...localActive } = viaLocal;
      expect(disabled).toBe(false);
      expect(localActive, s.distinctId).toEqual(decide);
      enabledSomewhere += Object.values(decide).filter((v) => v !== false).length;
    }
    // The property sets really exercise the flags: neither all off nor all on.
    expect(enabledSomewhere).toBeGreaterThan(300);
    expect(enabledSomewhere).toBeLessThan(2700);
  }, 120_000);

  it('single flags and payloads agree too', async () => {
    for (let i = 0; i < 20; i++) {
      const s = subject(i);
      const options = {
        personProperties: s.personProperties,
        groups: s.groups,
        groupProperties: s.groupProperties,
        sendFeatureFlagEvents: false,
      };
      const fromServer = await remote.getFeatureFlag('multivariate-flag', s.distinctId, options);
      const fromLocal = await local.getFeatureFlag('multivariate-flag', s.distinctId, { ...options, onlyEvaluateLocally: true });
      expect(fromLocal).toEqual(fromServer);
      const decide = await askFlags(server, '/decide/?v=3', { distinct_id: s.distinctId, person_properties: s.personProperties });
      expect(fromServer).toEqual(decide.featureFlags['multivariate-flag']);
      if (fromServer === 'first-variant') {
        expect(decide.featureFlagPayloads['multivariate-flag']).toBe('{"color":"blue"}');
        expect(await local.getFeatureFlagPayload('multivariate-flag', s.distinctId, 'first-variant')).toEqual({ color: 'blue' });
      }
    }
  }, 60_000);
});
