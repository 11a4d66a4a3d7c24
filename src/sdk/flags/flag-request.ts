import { isJsonObject, setOwn } from '../../lib/json-object.js';
/**
 * The fields of a `/decide` or `/flags` request body, with the aliases PostHog's flags service
 * accepts (docs/posthog-parity.md).
 */
type Json = Record<string, unknown>;

export interface FlagsRequest {
  token: string | null;
  distinctId: string | number | null;
  personProperties: Json;
  /** Group type name → group key. */
  groups: Json;
  /** Group type name → properties. */
  groupProperties: Record<string, Json>;
  anonDistinctId: string | null;
  deviceId: string | null;
  flagKeys: string[] | null;
  geoipDisable: boolean;
  disableFlags: boolean;
  /** The body's `evaluation_runtime`, as sent (evaluation-runtime.ts reads it). */
  evaluationRuntime: unknown;
}

/** The first present of a key's spellings (named parameters, not a rest list: no array per call). */
function first(body: Json, name: string, other: string, third?: string): unknown {
  const value = body[name];
  if (value !== undefined && value !== null) return value;
  const second = body[other];
  if (second !== undefined && second !== null) return second;
  if (third === undefined) return undefined;
  const last = body[third];
  return last !== undefined && last !== null ? last : undefined;
}

function truthy(value: unknown): boolean {
  return value === true || value === 'true' || value === 'True' || value === 1 || value === '1';
}

/** Reads a decoded body; null when it is not an object. */
export function readFlagsRequest(value: unknown): FlagsRequest | null {
  if (!isJsonObject(value)) return null;
  const token = first(value, 'token', '$token', 'api_key');
  const distinctId = first(value, 'distinct_id', '$distinct_id');
  const person = first(value, 'person_properties', '$properties');
  const groups = first(value, 'groups', '$groups');
  const groupProperties = first(value, 'group_properties', '$group_properties');
  const anon = first(value, 'anon_distinct_id', '$anon_distinct_id');
  const device = first(value, 'device_id', '$device_id');
  const flagKeys = first(value, 'flag_keys', 'flag_keys_to_evaluate');
  const properties: Record<string, Json> = {};
  if (isJsonObject(groupProperties)) {
    for (const type of Object.keys(groupProperties)) {
      const props = groupProperties[type];
      // An own key even for `__proto__`: assigned, it would set the map's prototype, and the
      // engine's `for…in` would then read the inner map's keys as group types.
      if (isJsonObject(props)) setOwn(properties, type, props);
    }
  }
  return {
    token: typeof token === 'string' && token !== '' ? token : null,
    distinctId: typeof distinctId === 'string' || typeof distinctId === 'number' ? distinctId : null,
    personProperties: isJsonObject(person) ? person : {},
    groups: isJsonObject(groups) ? groups : {},
    groupProperties: properties,
    anonDistinctId: typeof anon === 'string' && anon !== '' ? anon : null,
    deviceId: typeof device === 'string' && device !== '' ? device : null,
    flagKeys: Array.isArray(flagKeys) ? flagKeys.filter((k): k is string => typeof k === 'string') : null,
    geoipDisable: truthy(value.geoip_disable),
    disableFlags: truthy(value.disable_flags),
    evaluationRuntime: value.evaluation_runtime,
  };
}
