import { describe, expect, it } from 'vitest';

import {
  GEOIP_PERSON_KEYS,
  type GeoipLookupResult,
  applyGeoipProperties,
  geoipFlagProperties,
  geoipLocationFields,
  geoipLookupTarget,
  withoutIp,
} from '../../src/ingestion/core/geoip-properties.js';

// Shape returned by @maxmind/geoip2-node for 89.160.20.129 (MaxMind's documented test IP).
const linkoping: GeoipLookupResult = {
  city: { names: { en: 'Linköping', de: 'Linköping' } },
  continent: { code: 'EU', names: { en: 'Europe' } },
  country: { isoCode: 'SE', names: { en: 'Sweden' } },
  location: { accuracyRadius: 76, latitude: 58.4167, longitude: 15.6167, timeZone: 'Europe/Stockholm' },
  postal: { code: '587 58' },
  subdivisions: [{ isoCode: 'E', names: { en: 'Östergötland County' } }],
};

const expectedLocation = {
  $geoip_city_name: 'Linköping',
  $geoip_country_name: 'Sweden',
  $geoip_country_code: 'SE',
  $geoip_continent_name: 'Europe',
  $geoip_continent_code: 'EU',
  $geoip_postal_code: '587 58',
  $geoip_latitude: 58.4167,
  $geoip_longitude: 15.6167,
  $geoip_accuracy_radius: 76,
  $geoip_time_zone: 'Europe/Stockholm',
  $geoip_subdivision_1_code: 'E',
  $geoip_subdivision_1_name: 'Östergötland County',
};

describe('geoipLookupTarget', () => {
  it('looks up $ip', () => {
    expect(geoipLookupTarget({ $ip: ' 89.160.20.129 ' })).toEqual({ ip: '89.160.20.129' });
  });

  it('skips when $geoip_disable is truthy (posthog-node default) or $ip is empty', () => {
    expect(geoipLookupTarget({ $ip: '1.2.3.4', $geoip_disable: true })).toEqual({ skip: 'disabled' });
    expect(geoipLookupTarget({ $ip: '1.2.3.4', $geoip_disable: 'yes' })).toEqual({ skip: 'disabled' });
    expect(geoipLookupTarget({ $ip: '1.2.3.4', $geoip_disable: false })).toEqual({ ip: '1.2.3.4' });
    expect(geoipLookupTarget({})).toEqual({ skip: 'no_ip' });
    expect(geoipLookupTarget({ $ip: '' })).toEqual({ skip: 'no_ip' });
    expect(geoipLookupTarget({ $ip: 1234 })).toEqual({ skip: 'no_ip' });
  });
});

describe('applyGeoipProperties', () => {
  const properties = {
    $ip: '89.160.20.129',
    $current_url: 'https://x',
    $set: { email: 'a@b', $geoip_city_name: 'client value' },
    $set_once: { first: 1 },
  };

  it('adds $geoip_* event properties and $set / $set_once person updates', () => {
    const result = applyGeoipProperties(properties, linkoping);
    expect(result).toMatchObject({ $ip: '89.160.20.129', $current_url: 'https://x', ...expectedLocation });

    const set = result.$set as Record<string, unknown>;
    const setOnce = result.$set_once as Record<string, unknown>;
    expect(set.email).toBe('a@b');
    expect(setOnce.first).toBe(1);
    for (const [key, value] of Object.entries(expectedLocation)) {
      expect(set[key]).toEqual(value);
      expect(setOnce[key.replace('$geoip_', '$initial_geoip_')]).toEqual(value);
    }
    // GeoIP's own value beats the client's.
    expect(set.$geoip_city_name).toBe('Linköping');
  });

  it('clears every owned key the lookup does not know, in $set and $set_once, but not on the event', () => {
    const result = applyGeoipProperties({ $ip: '1.1.1.1' }, { country: { isoCode: 'AU', names: { en: 'Australia' } } });
    const set = result.$set as Record<string, unknown>;
    const setOnce = result.$set_once as Record<string, unknown>;
    expect(Object.keys(set).sort()).toEqual(GEOIP_PERSON_KEYS.map((k) => `$geoip_${k}`).sort());
    expect(set.$geoip_country_code).toBe('AU');
    expect(set.$geoip_postal_code).toBeNull();
    expect(set.$geoip_city_confidence).toBeNull();
    expect(setOnce.$initial_geoip_subdivision_2_name).toBeNull();
    expect(setOnce.$initial_geoip_country_name).toBe('Australia');
    expect(result).not.toHaveProperty('$geoip_postal_code');
    expect(result.$geoip_country_name).toBe('Australia');
  });

  it('writes null for a level that is present without a value', () => {
    const result = applyGeoipProperties({ $ip: '1.1.1.1' }, { city: { names: {} }, postal: {} });
    expect(result.$geoip_city_name).toBeNull();
    expect(result.$geoip_postal_code).toBeNull();
  });

  it('numbers every subdivision', () => {
    const fields = geoipLocationFields({
      subdivisions: [{ isoCode: 'ENG', names: { en: 'England' } }, { isoCode: 'LND', names: { en: 'London' } }, {}],
    });
    expect(fields).toEqual({
      subdivision_1_code: 'ENG',
      subdivision_1_name: 'England',
      subdivision_2_code: 'LND',
      subdivision_2_name: 'London',
      subdivision_3_code: null,
      subdivision_3_name: null,
    });
  });

  it('reads the raw maxmind reader shape (snake_case) too', () => {
    const fields = geoipLocationFields({
      country: { iso_code: 'DE', names: { en: 'Germany' } },
      location: { accuracy_radius: 5, time_zone: 'Europe/Berlin', latitude: 1, longitude: 2 },
      subdivisions: [{ iso_code: 'BE', names: { en: 'Berlin' } }],
    });
    expect(fields).toMatchObject({ country_code: 'DE', accuracy_radius: 5, time_zone: 'Europe/Berlin', subdivision_1_code: 'BE' });
  });

  it('returns the properties unchanged when disabled, without IP or without a lookup hit', () => {
    const disabled = { $ip: '1.1.1.1', $geoip_disable: true };
    expect(applyGeoipProperties(disabled, linkoping)).toBe(disabled);
    const noIp = { a: 1 };
    expect(applyGeoipProperties(noIp, linkoping)).toBe(noIp);
    const miss = { $ip: '10.0.0.1' };
    expect(applyGeoipProperties(miss, null)).toBe(miss);
    expect(applyGeoipProperties(miss, undefined)).toBe(miss);
  });

  it('does not modify the input, and replaces malformed $set / $set_once', () => {
    const input = { $ip: '1.1.1.1', $set: 'bad', $set_once: [1] };
    const result = applyGeoipProperties(input, linkoping);
    expect(input).toEqual({ $ip: '1.1.1.1', $set: 'bad', $set_once: [1] });
    expect((result.$set as Record<string, unknown>).$geoip_country_code).toBe('SE');
    expect(Array.isArray(result.$set_once)).toBe(false);
  });

  it('handles an empty lookup result as "no location"', () => {
    const result = applyGeoipProperties({ $ip: '1.1.1.1' }, {});
    expect(Object.keys(result).filter((k) => k.startsWith('$geoip_'))).toEqual([]);
    expect(Object.values(result.$set as Record<string, unknown>).every((v) => v === null)).toBe(true);
  });
});

describe('applyGeoipProperties with one lookup answer for many events', () => {
  it("gives each event its own equal additions, after the client's own $set / $set_once keys", () => {
    const lookup = { ...linkoping };
    const first = applyGeoipProperties({ $ip: '89.160.20.129', $set: { plan: 'pro' }, $set_once: { signup: 'a' } }, lookup);
    const second = applyGeoipProperties({ $ip: '89.160.20.129', $set: { plan: 'free', $geoip_city_name: 'Mine' } }, lookup);
    const firstSet = first.$set as Record<string, unknown>;
    const secondSet = second.$set as Record<string, unknown>;
    expect(Object.keys(firstSet)).toEqual(['plan', ...GEOIP_PERSON_KEYS.map((key) => `$geoip_${key}`)]);
    expect(Object.keys(first.$set_once as object)).toEqual(['signup', ...GEOIP_PERSON_KEYS.map((key) => `$initial_geoip_${key}`)]);
    // GeoIP's keys win over the client's, and the client's other keys stay its own.
    expect(secondSet.$geoip_city_name).toBe('Linköping');
    expect(secondSet.plan).toBe('free');
    expect(Object.keys(secondSet)[0]).toBe('plan');
    // Independent objects: changing one event's properties leaves the next event's alone.
    firstSet.$geoip_city_name = 'Changed';
    (first as Record<string, unknown>).$geoip_country_code = 'XX';
    const third = applyGeoipProperties({ $ip: '89.160.20.129' }, lookup);
    expect(third).toMatchObject(expectedLocation);
    expect((third.$set as Record<string, unknown>).$geoip_city_name).toBe('Linköping');
    expect(Object.isFrozen(third.$set)).toBe(false);
  });
});

describe('geoipFlagProperties and withoutIp', () => {
  it('gives the seven flag-evaluation keys that are known', () => {
    expect(geoipFlagProperties(linkoping)).toEqual({
      $geoip_city_name: 'Linköping',
      $geoip_country_name: 'Sweden',
      $geoip_country_code: 'SE',
      $geoip_continent_name: 'Europe',
      $geoip_continent_code: 'EU',
      $geoip_postal_code: '587 58',
      $geoip_time_zone: 'Europe/Stockholm',
    });
    expect(geoipFlagProperties({ country: { isoCode: 'US', names: {} } })).toEqual({ $geoip_country_code: 'US' });
    expect(geoipFlagProperties(null)).toEqual({});
  });

  it('removes $ip for anonymising projects', () => {
    expect(withoutIp({ $ip: '1.1.1.1', a: 1 })).toEqual({ a: 1 });
    const none = { a: 1 };
    expect(withoutIp(none)).toBe(none);
  });
});
