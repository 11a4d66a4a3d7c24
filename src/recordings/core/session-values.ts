/**
 * `sessions/values/`: the stored values of a session property, as PostHog samples and formats them.
 */
import { DEFAULT_CHANNEL_TYPES } from '../../posthog/channel-type.js';

import type { SessionProperties } from './session-properties.js';
import { SESSION_CLICK_IDS, SESSION_UTM_PARAMS } from './session-property-definitions.js';
import { isJsonObject } from '../../lib/json-object.js';
import { type ErrorEnvelope, validationEnvelope } from '../../posthog/errors.js';

/** Properties for which `sessions/values/` reads stored values (PostHog's raw-sessions mapping, strings only). */
export const SESSION_VALUE_KEYS: ReadonlySet<string> = new Set([
  '$entry_referring_domain',
  ...SESSION_UTM_PARAMS.map((p) => `$entry_${p}`),
  ...SESSION_CLICK_IDS.map((p) => `$entry_${p}`),
  '$entry_pathname',
  '$entry_current_url',
  '$end_current_url',
  '$end_pathname',
  '$last_external_click_url',
]);

export const SESSION_VALUES_LIMIT = 20;
/** PostHog samples the team's latest sessions only. */
export const SESSION_VALUES_SAMPLE = 100_000;

export type SessionValuesResult =
  | { ok: true; body: { results: { name: string }[]; refreshing: false } }
  | {
      ok: false;
      status: 400;
      body: ErrorEnvelope;
    };

/** `convert_property_value`: booleans as "true"/"false", objects as sorted-key JSON, others `String()`. */
function convertValue(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'object' && value !== null) return JSON.stringify(sortKeys(value));
  return String(value);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
    return out;
  }
  return value;
}

/** Values that parse as a JSON array are flattened into their elements. */
function flatten(value: string): string[] {
  if (value.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return parsed.map(convertValue);
    } catch {
      // not JSON: keep as is
    }
  }
  return [value];
}

/**
 * `sessions/values/?key=&value=`.
 *
 * - no `key` → 400 "Key not provided";
 * - `$channel_type` → the team's custom channel type names (unfiltered, as PostHog), then the default channel
 *   types containing `value` (case-insensitive), de-duplicated;
 * - a string property with a stored mapping → the 20 most frequent non-empty values among `sessions`
 *   (pass the team's latest sessions first; only the first 100 000 are read), optionally only those
 *   containing `value` case-insensitively (PostHog `ILIKE %value%`; `%`/`_` are not wildcards here);
 *   ties are broken alphabetically;
 * - `$is_bounce` → `"1"`, `"0"`; any other key → no values.
 */
export function sessionPropertyValues(input: {
  key?: unknown;
  value?: unknown;
  sessions?: Iterable<Partial<SessionProperties> | Record<string, unknown>>;
  /** The values counted already, most frequent first (a store counts them in SQL): used instead of `sessions`. */
  topValues?: readonly string[];
  customChannelTypes?: readonly string[];
}): SessionValuesResult {
  const key = typeof input.key === 'string' ? input.key : '';
  if (key === '') {
    return {
      ok: false,
      status: 400,
      body: validationEnvelope('Key not provided'),
    };
  }
  const search = typeof input.value === 'string' && input.value !== '' ? input.value.toLowerCase() : null;
  const done = (names: string[]): SessionValuesResult => ({
    ok: true,
    body: { results: names.map((name) => ({ name })), refreshing: false },
  });

  if (key === '$channel_type') {
    const defaults = DEFAULT_CHANNEL_TYPES.filter((t) => search === null || t.toLowerCase().includes(search));
    return done([...new Set([...(input.customChannelTypes ?? []), ...defaults])]);
  }
  if (key === '$is_bounce') return done(['1', '0']);
  if (!SESSION_VALUE_KEYS.has(key)) return done([]);
  if (input.topValues) return done(input.topValues.slice(0, SESSION_VALUES_LIMIT).flatMap(flatten));

  const counts = new Map<string, number>();
  let seen = 0;
  for (const session of input.sessions ?? []) {
    if (seen++ >= SESSION_VALUES_SAMPLE) break;
    const raw = (session as Record<string, unknown>)[key];
    if (typeof raw !== 'string' || raw === '') continue;
    if (search !== null && !raw.toLowerCase().includes(search)) continue;
    counts.set(raw, (counts.get(raw) ?? 0) + 1);
  }
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, SESSION_VALUES_LIMIT)
    .flatMap(([value]) => flatten(value));
  return done(top);
}
