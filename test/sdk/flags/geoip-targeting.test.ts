import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { askFlags, createFlag, personFilter } from '../../flags/flag-helpers.js';

/**
 * `$geoip_*` properties from the client address: X-Forwarded-For → GeoIP lookup (no TRUST_PROXY
 * needed: /decide and /flags read the header for GeoIP whatever the proxy setting).
 * The first tests use the real GeoIP service the server opens (bundled GeoLite2 City); the last
 * one injects a fake lookup through the context.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await createFlag(server, {
    key: 'uk-only',
    filters: { groups: [{ properties: [personFilter('$geoip_country_code', 'GB')], rollout_percentage: 100 }] },
  });
  await createFlag(server, {
    key: 'in-london-tz',
    filters: { groups: [{ properties: [personFilter('$geoip_time_zone', 'Europe/London')], rollout_percentage: 100 }] },
  });
});

afterAll(async () => {
  await server?.close();
});

const UK_ADDRESS = '81.2.69.142';

describe('GeoIP properties in flag evaluation', () => {
  it('turns on a flag targeted on $geoip_country_code for a known address', async () => {
    expect(server.running.ctx.geoip, 'the real GeoIP service is open').toBeDefined();
    const body = await askFlags(server, '/decide/?v=3', { distinct_id: 'traveller' }, { 'x-forwarded-for': UK_ADDRESS });
    expect(body.featureFlags).toMatchObject({ 'uk-only': true, 'in-london-tz': true });
  });

  it('leaves it off with geoip_disable or without an address', async () => {
    const disabled = await askFlags(
      server,
      '/decide/?v=3',
      { distinct_id: 'traveller', geoip_disable: true },
      { 'x-forwarded-for': UK_ADDRESS },
    );
    expect(disabled.featureFlags['uk-only']).toBe(false);
    const local = await askFlags(server, '/flags/?v=2', { distinct_id: 'traveller' });
    expect(local.flags['uk-only'].enabled).toBe(false);
  });

  it("lets a forwarded address override the request's own $geoip_* values (contract rule 5)", async () => {
    const body = { distinct_id: 'traveller', person_properties: { $geoip_country_code: 'FR', $geoip_time_zone: 'Europe/Paris' } };
    const forwarded = await askFlags(server, '/decide/?v=3', body, { 'x-forwarded-for': UK_ADDRESS });
    expect(forwarded.featureFlags).toMatchObject({ 'uk-only': true, 'in-london-tz': true });
    const flags = await askFlags(server, '/flags/?v=2', body, { 'x-forwarded-for': UK_ADDRESS });
    expect(flags.flags['uk-only'].enabled).toBe(true);
  });

  it("keeps the request's own values over the connection's address (no X-Forwarded-For)", async () => {
    const ctx = server.running.ctx;
    const real = ctx.geoip;
    ctx.geoip = {
      ...(real as object),
      lookup: (_ip: string) => ({ country: { isoCode: 'GB', names: { en: 'United Kingdom' } } }),
    } as typeof real;
    try {
      const own = await askFlags(server, '/decide/?v=3', { distinct_id: 'traveller', person_properties: { $geoip_country_code: 'FR' } });
      expect(own.featureFlags['uk-only']).toBe(false);
      const none = await askFlags(server, '/decide/?v=3', { distinct_id: 'traveller' });
      expect(none.featureFlags['uk-only']).toBe(true);
    } finally {
      ctx.geoip = real;
    }
  });

  it('uses an injected lookup', async () => {
    const ctx = server.running.ctx;
    const real = ctx.geoip;
    ctx.geoip = {
      ...(real as object),
      lookup: (ip: string) => (ip === '203.0.113.7' ? { country: { isoCode: 'GB', names: { en: 'United Kingdom' } } } : null),
    } as typeof real;
    try {
      const body = await askFlags(server, '/flags/?v=2', { distinct_id: 'x' }, { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' });
      expect(body.flags['uk-only'].enabled).toBe(true);
      expect(body.flags['in-london-tz'].enabled).toBe(false);
    } finally {
      ctx.geoip = real;
    }
  });
});
