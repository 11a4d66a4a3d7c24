/**
 * The session properties PostHog lists at `sessions/property_definitions/` (sessions table v2):
 * names, types, and the search / numeric filters of that endpoint.
 */
export type SessionPropertyType = 'DateTime' | 'String' | 'Numeric' | 'Boolean' | 'Duration';

export interface SessionPropertyDefinition {
  id: string;
  name: string;
  is_numerical: boolean;
  property_type: SessionPropertyType;
  is_seen_on_filtered_events: null;
  tags: string[];
}

/** Click-id query parameters PostHog keeps per session, in definition order. */
export const SESSION_CLICK_IDS = [
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  '_kx',
  'irclid',
] as const;

export const SESSION_UTM_PARAMS = ['utm_source', 'utm_campaign', 'utm_medium', 'utm_term', 'utm_content'] as const;

const PROPERTY_TYPES: readonly (readonly [string, SessionPropertyType])[] = [
  ['$start_timestamp', 'DateTime'],
  ['$end_timestamp', 'DateTime'],
  ['$entry_current_url', 'String'],
  ['$entry_pathname', 'String'],
  ['$entry_hostname', 'String'],
  ['$end_current_url', 'String'],
  ['$end_pathname', 'String'],
  ['$end_hostname', 'String'],
  ['$entry_referring_domain', 'String'],
  ...SESSION_UTM_PARAMS.map((p) => [`$entry_${p}`, 'String'] as const),
  ...SESSION_CLICK_IDS.map((p) => [`$entry_${p}`, 'String'] as const),
  ['$pageview_count', 'Numeric'],
  ['$autocapture_count', 'Numeric'],
  ['$screen_count', 'Numeric'],
  ['$channel_type', 'String'],
  ['$session_duration', 'Duration'],
  ['$is_bounce', 'Boolean'],
  ['$last_external_click_url', 'String'],
  ['$vitals_lcp', 'Numeric'],
];

/** The 37 session properties PostHog lists (sessions table v2), in PostHog's order. */
export const SESSION_PROPERTY_DEFINITIONS: readonly SessionPropertyDefinition[] = PROPERTY_TYPES.map(([name, type]) => ({
  id: name,
  name,
  is_numerical: type === 'Numeric' || type === 'Duration',
  property_type: type,
  is_seen_on_filtered_events: null,
  tags: [],
}));

/**
 * `is_numerical` as Hoglet reads it: `true`/`1` and `false`/`0` (any case, spaces trimmed), any other
 * value no filter. None of the shared readers (`drfBoolean`, `strToBool`) reads it so, nor does
 * PostHog's own: SessionViewSet.property_definitions (posthog/api/session.py) takes any value
 * present as `is_numerical.lower() == "true"`, so there `1` and unknown words ask for the
 * non-numerical properties (and releases before that filter ignore the parameter). Kept as it was.
 */
function isNumericalParam(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return undefined;
}

/**
 * `sessions/property_definitions/?search=&is_numerical=`: every `\w+` word of `search` must appear in the
 * name (case-insensitive); `is_numerical` (`true`/`false`) filters on numerical properties.
 * Unparseable `is_numerical` values are ignored.
 */
export function listSessionPropertyDefinitions(query: { search?: unknown; is_numerical?: unknown } = {}): {
  count: number;
  results: SessionPropertyDefinition[];
} {
  const search = typeof query.search === 'string' ? query.search : '';
  const words = (search.match(/[\p{L}\p{N}_]+/gu) ?? []).map((w) => w.toLowerCase());
  const numerical = isNumericalParam(query.is_numerical);
  const results = SESSION_PROPERTY_DEFINITIONS.filter((def) => {
    const name = def.name.toLowerCase();
    if (!words.every((w) => name.includes(w))) return false;
    if (numerical !== undefined && def.is_numerical !== numerical) return false;
    return true;
  }).map((def) => ({ ...def, tags: [...def.tags] }));
  return { count: results.length, results };
}
