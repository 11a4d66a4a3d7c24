import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillMissingInitialProperties, INITIAL_PROPERTY_SOURCES, initialBackfills } from '../../../src/sdk/flags/initial-properties.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { askFlags, createFlag, personFilter, storeGroup, storePerson } from '../../flags/flag-helpers.js';

/**
 * `$initial_<x>` filled from `<x>` for server-side evaluation, as PostHog's flags service does
 * (flag_matching_utils.rs populate_missing_initial_properties): after stored and request person
 * properties are merged, only where `$initial_<x>` is absent, person properties only.
 */
describe('the $initial_ back-fill', () => {
  it("has PostHog's key map: event-adapted `$x` and campaign `x`", () => {
    expect(INITIAL_PROPERTY_SOURCES.get('$initial_utm_source')).toBe('utm_source');
    expect(INITIAL_PROPERTY_SOURCES.get('$initial_browser')).toBe('$browser');
    expect(INITIAL_PROPERTY_SOURCES.get('$initial_raw_user_agent')).toBe('$raw_user_agent');
    expect(INITIAL_PROPERTY_SOURCES.get('$initial__kx')).toBe('_kx');
    expect(INITIAL_PROPERTY_SOURCES.get('$initial_geoip_country_code')).toBeUndefined();
    expect(INITIAL_PROPERTY_SOURCES.get('$initial_email')).toBeUndefined();
    expect(INITIAL_PROPERTY_SOURCES.size).toBe(42);
  });

  it('fills only absent $initial_ keys, a present null included', () => {
    const pairs = initialBackfills(['$initial_utm_source', '$initial_browser', '$initial_os', '$initial_referrer', 'plan']);
    const properties: Record<string, unknown> = {
      utm_source: 'google',
      $browser: 'Firefox',
      $initial_browser: 'Chrome',
      $os: 'Linux',
      $initial_os: null,
    };
    fillMissingInitialProperties(properties, pairs);
    expect(properties).toEqual({
      utm_source: 'google',
      $initial_utm_source: 'google',
      $browser: 'Firefox',
      $initial_browser: 'Chrome',
      $os: 'Linux',
      $initial_os: null,
    });
  });
});

let server: TestServer;
let companyIndex: number;

beforeAll(async () => {
  server = await startTestServer();
  await createFlag(server, {
    key: 'from-google',
    filters: { groups: [{ properties: [personFilter('$initial_utm_source', 'google')], rollout_percentage: 100 }] },
  });
  companyIndex = await storeGroup(server, 'company', 'acme', {});
  await createFlag(server, {
    key: 'companies-from-google',
    filters: {
      aggregation_group_type_index: companyIndex,
      groups: [
        {
          properties: [{ key: '$initial_utm_source', value: 'google', operator: 'exact', type: 'group', group_type_index: companyIndex }],
          rollout_percentage: 100,
        },
      ],
    },
  });
});

afterAll(async () => {
  await server?.close();
});

describe('$initial_ back-fill on /decide and /flags', () => {
  it('turns a flag on $initial_utm_source on for a new user who sends utm_source', async () => {
    const request = { distinct_id: 'brand-new-visitor', person_properties: { utm_source: 'google' } };
    const flags = await askFlags(server, '/flags/?v=2', request);
    expect(flags.flags['from-google']).toMatchObject({ enabled: true, reason: { code: 'condition_match' } });
    const decide = await askFlags(server, '/decide/?v=3', request);
    expect(decide.featureFlags['from-google']).toBe(true);
  });

  it('keeps a supplied $initial_utm_source', async () => {
    const request = { distinct_id: 'brand-new-visitor', person_properties: { utm_source: 'google', $initial_utm_source: 'bing' } };
    expect((await askFlags(server, '/flags/?v=2', request)).flags['from-google'].enabled).toBe(false);
    expect((await askFlags(server, '/decide/?v=3', request)).featureFlags['from-google']).toBe(false);
  });

  it('keeps a stored $initial_utm_source, and fills from a stored utm_source', async () => {
    await storePerson(server, ['came-from-bing'], { $initial_utm_source: 'bing' });
    const kept = await askFlags(server, '/flags/?v=2', { distinct_id: 'came-from-bing', person_properties: { utm_source: 'google' } });
    expect(kept.flags['from-google'].enabled).toBe(false);
    await storePerson(server, ['stored-google'], { utm_source: 'google' });
    const filled = await askFlags(server, '/decide/?v=3', { distinct_id: 'stored-google' });
    expect(filled.featureFlags['from-google']).toBe(true);
  });

  it('does not back-fill group properties', async () => {
    const body = await askFlags(server, '/flags/?v=2', {
      distinct_id: 'member',
      groups: { company: 'acme' },
      group_properties: { company: { utm_source: 'google' } },
    });
    expect(body.flags['companies-from-google'].enabled).toBe(false);
    const given = await askFlags(server, '/flags/?v=2', {
      distinct_id: 'member',
      groups: { company: 'acme' },
      group_properties: { company: { $initial_utm_source: 'google' } },
    });
    expect(given.flags['companies-from-google'].enabled).toBe(true);
  });
});
