import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardedForAddress, geoipAddress } from '../../../src/sdk/flags/geoip-address.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { askFlags, createFlag, personFilter } from '../../flags/flag-helpers.js';

/**
 * X-Forwarded-For on `/decide` and `/flags` with the default configuration (no TRUST_PROXY): the
 * contract's "IP address to use as the client address for GeoIP evaluation", read as PostHog's
 * flags service reads it (first entry, port stripped, brackets removed), while capture's `$ip`
 * still follows TRUST_PROXY.
 */
describe('forwardedForAddress', () => {
  it('takes the first entry, trimmed, without a port', () => {
    expect(forwardedForAddress('81.2.69.142')).toBe('81.2.69.142');
    expect(forwardedForAddress('  81.2.69.142 , 10.0.0.1, 10.0.0.2')).toBe('81.2.69.142');
    expect(forwardedForAddress('81.2.69.142:8443, 10.0.0.1')).toBe('81.2.69.142');
  });

  it('reads IPv6 bare or in brackets, with or without a port', () => {
    expect(forwardedForAddress('2001:db8::1')).toBe('2001:db8::1');
    expect(forwardedForAddress('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(forwardedForAddress('[2001:db8::1]')).toBe('2001:db8::1');
    expect(forwardedForAddress('::ffff:81.2.69.142')).toBe('::ffff:81.2.69.142');
  });

  it('gives nothing for an entry that is no IP address', () => {
    for (const header of ['', ' ', 'unknown', 'example.com', 'example.com:80', '81.2.69', '999.1.1.1', 'fe80::1%eth0', ', 81.2.69.142']) {
      expect(forwardedForAddress(header), JSON.stringify(header)).toBeUndefined();
    }
    expect(forwardedForAddress(undefined)).toBeUndefined();
  });

  it('falls back to the client address', () => {
    expect(geoipAddress('81.2.69.142', '127.0.0.1')).toEqual({ address: '81.2.69.142', supplied: true });
    expect(geoipAddress('garbage', '127.0.0.1')).toEqual({ address: '127.0.0.1', supplied: false });
    expect(geoipAddress(undefined, '::1')).toEqual({ address: '::1', supplied: false });
    expect(geoipAddress(undefined, undefined)).toBeUndefined();
  });
});

let server: TestServer;
const UK_ADDRESS = '81.2.69.142';

beforeAll(async () => {
  server = await startTestServer(); // no TRUST_PROXY
  await createFlag(server, {
    key: 'gb-visitors',
    filters: { groups: [{ properties: [personFilter('$geoip_country_code', 'GB')], rollout_percentage: 100 }] },
  });
});

afterAll(async () => {
  await server?.close();
});

describe('X-Forwarded-For on /decide and /flags without TRUST_PROXY', () => {
  it('locates the forwarded address: a flag on $geoip_country_code = GB turns on', async () => {
    expect(server.running.ctx.config.trustProxy).toBe(false);
    const decide = await askFlags(server, '/decide/?v=3', { distinct_id: 'visitor' }, { 'x-forwarded-for': UK_ADDRESS });
    expect(decide.featureFlags['gb-visitors']).toBe(true);
    const flags = await askFlags(server, '/flags/?v=2', { distinct_id: 'visitor' }, { 'x-forwarded-for': `${UK_ADDRESS}:51234, 10.0.0.1` });
    expect(flags.flags['gb-visitors'].enabled).toBe(true);
  });

  it('falls back to the client address when the header is no IP address', async () => {
    const off = await askFlags(server, '/flags/?v=2', { distinct_id: 'visitor' }, { 'x-forwarded-for': 'not-an-address' });
    expect(off.flags['gb-visitors'].enabled).toBe(false);
    const ctx = server.running.ctx;
    const real = ctx.geoip;
    const looked: string[] = [];
    ctx.geoip = {
      ...(real as object),
      lookup: (ip: string) => (looked.push(ip), { country: { isoCode: 'GB', names: { en: 'United Kingdom' } } }),
    } as typeof real;
    try {
      const body = await askFlags(server, '/flags/?v=2', { distinct_id: 'visitor' }, { 'x-forwarded-for': 'not-an-address' });
      expect(body.flags['gb-visitors'].enabled).toBe(true);
      expect(looked).toHaveLength(1);
      expect(looked[0]).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
    } finally {
      ctx.geoip = real;
    }
  });

  it('leaves the flag off with geoip_disable', async () => {
    const body = await askFlags(server, '/decide/?v=3', { distinct_id: 'visitor', geoip_disable: true }, { 'x-forwarded-for': UK_ADDRESS });
    expect(body.featureFlags['gb-visitors']).toBe(false);
  });

  it("keeps capture's $ip on the socket address (TRUST_PROXY still governs it)", async () => {
    const res = await server.request('/capture/', {
      method: 'POST',
      key: null,
      body: { api_key: server.bootstrap.team.apiToken, event: 'forwarded', distinct_id: 'xff-capture' },
      headers: { 'x-forwarded-for': UK_ADDRESS },
    });
    expect(res.status).toBe(200);
    await server.settle();
    const stored = await server.request(`/api/environments/${server.bootstrap.team.id}/events/?distinct_id=xff-capture`);
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.results).toHaveLength(1);
    expect(stored.body.results[0].properties.$ip).not.toBe(UK_ADDRESS);
    expect(stored.body.results[0].properties.$geoip_country_code).toBeUndefined();
  });
});
