/**
 * The analytics tables' vocabulary for readers: which properties are columns, the vitals columns,
 * and how an event's person is resolved through merges. The tables themselves are made in
 * analytics-tables.ts.
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';

/**
 * Properties read often enough (filters, breakdowns, web analytics) to be kept as columns beside
 * the JSON, so a query on them reads no JSON: property → column. A column holds the property as
 * text, NULL when it is missing or JSON null, as a property filter reads it.
 */
export const MATERIALIZED_PROPERTIES: Readonly<Record<string, string>> = {
  $current_url: 'mat_current_url',
  $pathname: 'mat_pathname',
  $host: 'mat_host',
  $browser: 'mat_browser',
  $os: 'mat_os',
  $device_type: 'mat_device_type',
  $referring_domain: 'mat_referring_domain',
  $session_id: 'mat_session_id',
  $window_id: 'mat_window_id',
  $geoip_country_code: 'mat_geoip_country_code',
  utm_source: 'mat_utm_source',
  utm_medium: 'mat_utm_medium',
  utm_campaign: 'mat_utm_campaign',
  utm_content: 'mat_utm_content',
  utm_term: 'mat_utm_term',
};

/** The column a property is kept in, when it is one of MATERIALIZED_PROPERTIES. */
export function materializedColumn(key: string): string | undefined {
  return Object.hasOwn(MATERIALIZED_PROPERTIES, key) ? MATERIALIZED_PROPERTIES[key] : undefined;
}

/**
 * Web vitals' values as numbers (propertyNumber), kept as columns on `$web_vitals` events (NULL on
 * the others): web analytics asks them per path eight times a page, and reading them out of the
 * JSON was most of its time (at 200,000 events, ~0.5 s a query against ~20 ms from a column).
 * Metric → column.
 */
export const VITALS_COLUMNS = {
  LCP: 'mat_web_vitals_lcp',
  INP: 'mat_web_vitals_inp',
  CLS: 'mat_web_vitals_cls',
  FCP: 'mat_web_vitals_fcp',
} as const;

/**
 * The person an event counts for: the one its person was merged into, if any. `overrides` is the
 * subquery alias joined with personOverridesJoin.
 */
export function personIdExpression(eventAlias = 'e', overridesAlias = 'o'): string {
  return `if(${overridesAlias}.old_person_id = ${eventAlias}.person_id, ${overridesAlias}.override_person_id, ${eventAlias}.person_id)`;
}

/** LEFT JOIN of a team's person overrides (the newest of each), for personIdExpression; `{team}` is the team's parameter. */
export function personOverridesJoin(engine: AnalyticsEngine, teamParam: string, eventAlias = 'e', overridesAlias = 'o'): string {
  return `LEFT JOIN (SELECT old_person_id, argMax(override_person_id, version) AS override_person_id FROM ${engine.table('person_overrides')}
      WHERE team_id = ${teamParam} GROUP BY old_person_id) AS ${overridesAlias} ON ${overridesAlias}.old_person_id = ${eventAlias}.person_id`;
}
