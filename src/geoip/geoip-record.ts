/**
 * What a GeoIP lookup reads and answers: the address as the reader parses it, and a database
 * record as a `GeoipLookupResult`.
 *
 * Two record schemas are understood and normalised to `GeoipLookupResult`:
 * - the GeoIP2 / GeoLite2 City schema (`city.names.en`, `country.iso_code`, `subdivisions[]`,
 *   `location.time_zone`, …), also used by DB-IP's City Lite files; this is what PostHog reads;
 * - the flat schema of ip-location-db's `*-mmdb` files (`country_code`, `city`, `state1`, `state2`,
 *   `postcode`, `latitude`, `longitude`, `timezone`), and similar flat files with `country`,
 *   `continent`, `continent_code` strings. Country names missing from such a record are taken from
 *   ICU (`Intl.DisplayNames`), which can differ slightly from MaxMind's wording; a continent is only
 *   known when the record carries it.
 */
import { isIP } from 'node:net';
import type { GeoipLookupResult } from './lookup-result.js';
import { isJsonObject } from '../lib/json-object.js';

/**
 * The address to look up, in a form the reader parses correctly, or null when `ip` is not an IP
 * address. Trims, removes `[...]` brackets and an IPv6 zone index (`%eth0`), and turns
 * IPv4-mapped IPv6 (`::ffff:1.2.3.4`, `::ffff:102:304`) into plain IPv4.
 */
export function normalizeIpAddress(ip: unknown): string | null {
  if (typeof ip !== 'string') return null;
  let address = ip.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return null;
  address = address.toLowerCase();
  return ipv4FromMapped(address) ?? address;
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:0:0/96), else null. */
function ipv4FromMapped(address: string): string | null {
  let head = address;
  let embedded: string | null = null;
  const lastColon = address.lastIndexOf(':');
  if (address.includes('.', lastColon)) {
    embedded = address.slice(lastColon + 1);
    head = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const [left = '', right] = head.split('::', 2);
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const groups =
    right === undefined
      ? leftGroups
      : [...leftGroups, ...Array<string>(8 - leftGroups.length - rightGroups.length).fill('0'), ...rightGroups];
  if (groups.length !== 8) return null;
  const values = groups.map((group) => parseInt(group, 16));
  if (values.slice(0, 5).some((value) => value !== 0) || values[5] !== 0xffff) return null;
  if (embedded !== null) return embedded;
  const high = values[6]!;
  const low = values[7]!;
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * A database record in either schema as a `GeoipLookupResult` (snake_case, as the raw reader
 * gives it; English names only). Null for no record or a record with no location data at all
 * (e.g. an ASN database). A GeoIP2 record known only by its `registered_country` gives an empty
 * result, as in PostHog: the transformation then clears the person's stale GeoIP properties.
 */
export function normalizeGeoipRecord(record: unknown): GeoipLookupResult | null {
  if (!isJsonObject(record)) return null;
  if (isStandardRecord(record)) return normalizeStandard(record);
  if (typeof record.country_code === 'string' || typeof record.city === 'string') return normalizeFlat(record);
  return null;
}

const STANDARD_KEYS = [
  'city',
  'country',
  'continent',
  'location',
  'postal',
  'subdivisions',
  'registered_country',
  'represented_country',
  'traits',
] as const;

function isStandardRecord(record: Record<string, unknown>): boolean {
  return STANDARD_KEYS.some((key) => isJsonObject(record[key]) || Array.isArray(record[key]));
}

function normalizeStandard(record: Record<string, unknown>): GeoipLookupResult {
  const result: GeoipLookupResult = {};
  const city = record.city;
  if (isJsonObject(city)) {
    result.city = { names: englishNames(city.names) };
    if (typeof city.confidence === 'number') result.city.confidence = city.confidence;
  }
  const country = record.country;
  if (isJsonObject(country)) {
    result.country = { names: englishNames(country.names) };
    const code = stringOrUndefined(country.iso_code);
    if (code !== undefined) result.country.iso_code = code;
  }
  const continent = record.continent;
  if (isJsonObject(continent)) {
    result.continent = { names: englishNames(continent.names) };
    const code = stringOrUndefined(continent.code);
    if (code !== undefined) result.continent.code = code;
  }
  const postal = record.postal;
  if (isJsonObject(postal)) {
    result.postal = {};
    const code = stringOrUndefined(postal.code);
    if (code !== undefined) result.postal.code = code;
  }
  const location = record.location;
  if (isJsonObject(location)) {
    result.location = {};
    if (typeof location.latitude === 'number') result.location.latitude = location.latitude;
    if (typeof location.longitude === 'number') result.location.longitude = location.longitude;
    if (typeof location.accuracy_radius === 'number') result.location.accuracy_radius = location.accuracy_radius;
    const timeZone = stringOrUndefined(location.time_zone);
    if (timeZone !== undefined) result.location.time_zone = timeZone;
  }
  if (Array.isArray(record.subdivisions)) {
    result.subdivisions = record.subdivisions.filter(isJsonObject).map((subdivision) => {
      const normalized: { names: { en?: string }; iso_code?: string } = { names: englishNames(subdivision.names) };
      const code = stringOrUndefined(subdivision.iso_code);
      if (code !== undefined) normalized.iso_code = code;
      return normalized;
    });
  }
  return result;
}

let regionNames: Intl.DisplayNames | null | undefined;

function countryName(code: string): string | undefined {
  if (regionNames === undefined) {
    try {
      regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    } catch {
      regionNames = null;
    }
  }
  try {
    return regionNames?.of(code.toUpperCase()) ?? undefined;
  } catch {
    return undefined;
  }
}

/** ip-location-db's flat schema; empty strings there mean "unknown". */
function normalizeFlat(record: Record<string, unknown>): GeoipLookupResult {
  const result: GeoipLookupResult = {};
  const city = nonEmpty(record.city);
  if (city !== undefined) result.city = { names: { en: city } };
  const countryCode = nonEmpty(record.country_code);
  const countryLabel = nonEmpty(record.country_name) ?? nonEmpty(record.country);
  if (countryCode !== undefined || countryLabel !== undefined) {
    const name = countryLabel ?? (countryCode !== undefined ? countryName(countryCode) : undefined);
    result.country = { names: name !== undefined ? { en: name } : {} };
    if (countryCode !== undefined) result.country.iso_code = countryCode.toUpperCase();
  }
  const continentCode = nonEmpty(record.continent_code);
  const continentName = nonEmpty(record.continent_name) ?? nonEmpty(record.continent);
  if (continentCode !== undefined || continentName !== undefined) {
    result.continent = { names: continentName !== undefined ? { en: continentName } : {} };
    if (continentCode !== undefined) result.continent.code = continentCode.toUpperCase();
  }
  const postcode = nonEmpty(record.postcode) ?? nonEmpty(record.postal_code);
  if (postcode !== undefined) result.postal = { code: postcode };
  const latitude = record.latitude;
  const longitude = record.longitude;
  const timeZone = nonEmpty(record.timezone) ?? nonEmpty(record.time_zone);
  if (typeof latitude === 'number' || typeof longitude === 'number' || timeZone !== undefined) {
    result.location = {};
    if (typeof latitude === 'number') result.location.latitude = latitude;
    if (typeof longitude === 'number') result.location.longitude = longitude;
    if (timeZone !== undefined) result.location.time_zone = timeZone;
  }
  const subdivisions: Array<{ names: { en: string } }> = [];
  for (const key of ['state1', 'state2'] as const) {
    const name = nonEmpty(record[key]);
    if (name === undefined) break;
    subdivisions.push({ names: { en: name } });
  }
  if (subdivisions.length > 0) result.subdivisions = subdivisions;
  return result;
}

function englishNames(names: unknown): { en?: string } {
  if (!isJsonObject(names)) return {};
  const en = stringOrUndefined(names.en);
  return en !== undefined ? { en } : {};
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
