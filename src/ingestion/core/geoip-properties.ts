/**
 * PostHog's GeoIP transformation (Hog template `template-geoip`; docs/posthog-parity.md)
 * and the GeoIP person properties the flags endpoint adds for evaluation.
 *
 * The lookup itself (MaxMind City database) is I/O and belongs to the caller; this module only
 * maps a lookup result to properties. Both the `@maxmind/geoip2-node` shape (camelCase:
 * `isoCode`, `accuracyRadius`, `timeZone`) and the raw `maxmind` reader shape (snake_case) are read.
 */
import { growableCopy } from '../../lib/growable-copy.js';
import { type Properties } from './types.js';
import type { GeoipLookupResult, Names } from '../../geoip/lookup-result.js';
import { isJsonObject } from '../../lib/json-object.js';

export type { GeoipLookupResult };

/**
 * Every key the transformation owns. Each run first writes them all as null in `$set` and
 * `$set_once` (as `$initial_geoip_*`), so a new location does not keep a stale postal code or
 * subdivision of the previous one; the keys the lookup knows are then overwritten.
 */
export const GEOIP_PERSON_KEYS = [
  'city_name',
  'city_confidence',
  'subdivision_2_name',
  'subdivision_2_code',
  'subdivision_1_name',
  'subdivision_1_code',
  'country_name',
  'country_code',
  'continent_name',
  'continent_code',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius',
  'time_zone',
] as const;

/** The properties the flags endpoint merges into person properties for evaluation. */
export const GEOIP_FLAG_PROPERTY_KEYS = [
  '$geoip_city_name',
  '$geoip_country_name',
  '$geoip_country_code',
  '$geoip_continent_name',
  '$geoip_continent_code',
  '$geoip_postal_code',
  '$geoip_time_zone',
] as const;

/** Why no lookup is needed; undefined from `geoipLookupTarget` means "look `ip` up". */
export type GeoipSkipReason = 'disabled' | 'no_ip';

/**
 * Whether the transformation runs for these event properties, and on which IP: skipped when
 * `$geoip_disable` is truthy (posthog-node sets it on every event by default) or `$ip` is empty.
 * (PostHog replaces 127.0.0.1 by a test IP in development only; that is not done here.)
 */
export function geoipLookupTarget(properties: Properties): { ip: string } | { skip: GeoipSkipReason } {
  if (properties.$geoip_disable) return { skip: 'disabled' };
  const ip = properties.$ip;
  if (typeof ip !== 'string' || ip.trim() === '') return { skip: 'no_ip' };
  return { ip: ip.trim() };
}

/**
 * The location fields a lookup yields, keyed without prefix (`city_name`, `subdivision_1_code`, …),
 * in the template's order. A level that is present but lacks a value gives null (Hog's missing
 * values are null); absent levels give nothing.
 */
export function geoipLocationFields(lookup: Readonly<GeoipLookupResult>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (lookup.city) fields.city_name = englishName(lookup.city.names);
  if (lookup.country) {
    fields.country_name = englishName(lookup.country.names);
    fields.country_code = lookup.country.isoCode ?? lookup.country.iso_code ?? null;
  }
  if (lookup.continent) {
    fields.continent_name = englishName(lookup.continent.names);
    fields.continent_code = lookup.continent.code ?? null;
  }
  if (lookup.postal) fields.postal_code = lookup.postal.code ?? null;
  if (lookup.location) {
    const location = lookup.location;
    fields.latitude = location.latitude ?? null;
    fields.longitude = location.longitude ?? null;
    fields.accuracy_radius = location.accuracyRadius ?? location.accuracy_radius ?? null;
    fields.time_zone = location.timeZone ?? location.time_zone ?? null;
  }
  if (Array.isArray(lookup.subdivisions)) {
    lookup.subdivisions.forEach((subdivision, index) => {
      fields[`subdivision_${index + 1}_code`] = subdivision?.isoCode ?? subdivision?.iso_code ?? null;
      fields[`subdivision_${index + 1}_name`] = englishName(subdivision?.names);
    });
  }
  return fields;
}

/**
 * Applies the GeoIP transformation to event properties and returns new properties (the input is
 * not modified): `$geoip_*` event properties for every location field; in `$set`, every owned key
 * as `$geoip_*` (null unless known); in `$set_once`, the same as `$initial_geoip_*`. Existing
 * `$set`/`$set_once` entries for other keys are kept; GeoIP's own keys override the client's.
 * A null lookup (unknown IP) or a skip condition returns the properties unchanged.
 */
export function applyGeoipProperties(properties: Properties, lookup: Readonly<GeoipLookupResult> | null | undefined): Properties {
  if ('skip' in geoipLookupTarget(properties) || !lookup) return properties;
  const result: Properties = growableCopy(properties);
  addGeoipProperties(result, lookup);
  return result;
}

/**
 * applyGeoipProperties on properties the caller owns (their `$set` and `$set_once` are still
 * copied: they may be the client's objects). The caller has checked geoipLookupTarget.
 */
export function addGeoipProperties(result: Properties, lookup: Readonly<GeoipLookupResult>): void {
  const additions = geoipAdditions(lookup);
  result.$set = Object.assign(growableCopy(isJsonObject(result.$set) ? result.$set : undefined), additions.set);
  result.$set_once = Object.assign(growableCopy(isJsonObject(result.$set_once) ? result.$set_once : undefined), additions.setOnce);
  Object.assign(result, additions.event);
}

/** What a lookup adds to an event: its `$geoip_*` properties, and its keys of `$set` and `$set_once`. */
export interface GeoipAdditions {
  event: Readonly<Properties>;
  set: Readonly<Properties>;
  setOnce: Readonly<Properties>;
}

const SET_KEYS = GEOIP_PERSON_KEYS.map((key) => `$geoip_${key}`);
const SET_ONCE_KEYS = GEOIP_PERSON_KEYS.map((key) => `$initial_geoip_${key}`);
/** Per lookup answer: the geoip service gives the same answer object for an address seen again. */
const additionsByLookup = new WeakMap<Readonly<GeoipLookupResult>, GeoipAdditions>();

/**
 * The additions of a lookup, built once per answer: per event they are then three copies of a
 * few dozen keys, not as many keys built from strings and set one by one (GeoIP was the largest
 * part of an event's preparation). Every owned key is written as null first, in
 * GEOIP_PERSON_KEYS order, then the known ones over them: the keys' order in `$set`/`$set_once`.
 */
export function geoipAdditions(lookup: Readonly<GeoipLookupResult>): GeoipAdditions {
  let additions = additionsByLookup.get(lookup);
  if (additions) return additions;
  const event: Properties = {};
  const set: Properties = {};
  const setOnce: Properties = {};
  for (let i = 0; i < GEOIP_PERSON_KEYS.length; i++) {
    set[SET_KEYS[i]!] = null;
    setOnce[SET_ONCE_KEYS[i]!] = null;
  }
  for (const [key, value] of Object.entries(geoipLocationFields(lookup))) {
    event[`$geoip_${key}`] = value;
    set[`$geoip_${key}`] = value;
    setOnce[`$initial_geoip_${key}`] = value;
  }
  additions = { event: Object.freeze(event), set: Object.freeze(set), setOnce: Object.freeze(setOnce) };
  additionsByLookup.set(lookup, additions);
  return additions;
}

/**
 * GeoIP person properties for flag evaluation (`/decide`, `/flags`): only the seven keys PostHog
 * adds, and only those the lookup knows (null values are left out so they never shadow supplied
 * properties with nothing).
 */
export function geoipFlagProperties(lookup: Readonly<GeoipLookupResult> | null | undefined): Properties {
  if (!lookup) return {};
  const location = geoipLocationFields(lookup);
  const result: Properties = {};
  for (const key of GEOIP_FLAG_PROPERTY_KEYS) {
    const value = location[key.slice('$geoip_'.length)];
    if (value !== null && value !== undefined) result[key] = value;
  }
  return result;
}

/** Removes `$ip` after GeoIP ran, for projects that anonymise IPs (PostHog `anonymize_ips`). */
export function withoutIp(properties: Properties): Properties {
  if (!('$ip' in properties)) return properties;
  const { $ip: _ip, ...rest } = properties;
  return rest;
}

function englishName(names: Names | undefined): unknown {
  return names?.en ?? null;
}
