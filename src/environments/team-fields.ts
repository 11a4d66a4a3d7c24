/**
 * The configurable fields of an environment (PostHog's Team), their kinds and PostHog's defaults
 * for a new one (TeamSerializer, the Team model; docs/posthog-parity.md). Stored as one JSON document;
 * serialisation, defaults and validation all read this one list.
 */

export type TeamFieldKind =
  | 'string'
  | 'nullable-string'
  | 'boolean'
  | 'nullable-boolean'
  | 'integer'
  | 'nullable-integer'
  | 'string-array'
  | 'nullable-string-array'
  | 'array'
  | 'json'
  | 'timezone'
  | 'decimal-string';

export interface TeamField {
  name: string;
  kind: TeamFieldKind;
  /** PostHog's default for a new environment; a function when it must be a fresh object. */
  default: unknown;
}

const LOCALHOST_FILTER = {
  key: '$host',
  operator: 'not_regex',
  value: '^(localhost|127\\.0\\.0\\.1)($|:)',
  type: 'event',
};

/** Order matters: it is the key order of PostHog's TeamSerializer, which responses follow. */
export const TEAM_CONFIG_FIELDS: readonly TeamField[] = [
  { name: 'app_urls', kind: 'string-array', default: [] },
  { name: 'slack_incoming_webhook', kind: 'nullable-string', default: null },
  { name: 'anonymize_ips', kind: 'boolean', default: false },
  { name: 'completed_snippet_onboarding', kind: 'boolean', default: false },
  { name: 'test_account_filters', kind: 'json', default: [LOCALHOST_FILTER] },
  { name: 'test_account_filters_default_checked', kind: 'nullable-boolean', default: null },
  { name: 'path_cleaning_filters', kind: 'json', default: [] },
  { name: 'is_demo', kind: 'boolean', default: false },
  { name: 'timezone', kind: 'timezone', default: 'UTC' },
  { name: 'data_attributes', kind: 'json', default: ['data-attr'] },
  { name: 'person_display_name_properties', kind: 'nullable-string-array', default: null },
  { name: 'correlation_config', kind: 'json', default: {} },
  { name: 'autocapture_opt_out', kind: 'nullable-boolean', default: null },
  { name: 'autocapture_exceptions_opt_in', kind: 'nullable-boolean', default: null },
  { name: 'autocapture_web_vitals_opt_in', kind: 'nullable-boolean', default: null },
  { name: 'autocapture_web_vitals_allowed_metrics', kind: 'json', default: null },
  { name: 'autocapture_exceptions_errors_to_ignore', kind: 'json', default: null },
  { name: 'capture_console_log_opt_in', kind: 'nullable-boolean', default: true },
  { name: 'capture_performance_opt_in', kind: 'nullable-boolean', default: true },
  { name: 'session_recording_opt_in', kind: 'boolean', default: false },
  { name: 'session_recording_sample_rate', kind: 'decimal-string', default: null },
  { name: 'session_recording_minimum_duration_milliseconds', kind: 'nullable-integer', default: null },
  { name: 'session_recording_linked_flag', kind: 'json', default: null },
  { name: 'session_recording_network_payload_capture_config', kind: 'json', default: null },
  { name: 'session_recording_masking_config', kind: 'json', default: null },
  { name: 'session_recording_url_trigger_config', kind: 'array', default: [] },
  { name: 'session_recording_url_blocklist_config', kind: 'array', default: [] },
  { name: 'session_recording_event_trigger_config', kind: 'nullable-string-array', default: [] },
  { name: 'session_recording_trigger_match_type_config', kind: 'nullable-string', default: null },
  { name: 'session_recording_retention_period', kind: 'string', default: '30d' },
  { name: 'session_replay_config', kind: 'json', default: null },
  { name: 'survey_config', kind: 'json', default: null },
  { name: 'access_control', kind: 'boolean', default: false },
  { name: 'week_start_day', kind: 'nullable-integer', default: null },
  { name: 'primary_dashboard', kind: 'nullable-integer', default: null },
  { name: 'live_events_columns', kind: 'nullable-string-array', default: null },
  { name: 'recording_domains', kind: 'nullable-string-array', default: null },
  { name: 'cookieless_server_hash_mode', kind: 'nullable-integer', default: 0 },
  { name: 'human_friendly_comparison_periods', kind: 'nullable-boolean', default: false },
  { name: 'inject_web_apps', kind: 'nullable-boolean', default: null },
  { name: 'extra_settings', kind: 'json', default: null },
  { name: 'modifiers', kind: 'json', default: null },
  { name: 'has_completed_onboarding_for', kind: 'json', default: null },
  { name: 'surveys_opt_in', kind: 'nullable-boolean', default: null },
  { name: 'heatmaps_opt_in', kind: 'nullable-boolean', default: null },
  { name: 'flags_persistence_default', kind: 'nullable-boolean', default: false },
  { name: 'feature_flag_confirmation_enabled', kind: 'nullable-boolean', default: false },
  { name: 'feature_flag_confirmation_message', kind: 'nullable-string', default: null },
  { name: 'default_evaluation_environments_enabled', kind: 'nullable-boolean', default: false },
  { name: 'capture_dead_clicks', kind: 'nullable-boolean', default: false },
  { name: 'default_data_theme', kind: 'nullable-integer', default: null },
  { name: 'revenue_tracking_config', kind: 'json', default: null },
  { name: 'revenue_analytics_config', kind: 'json', default: null },
  { name: 'marketing_analytics_config', kind: 'json', default: null },
  { name: 'onboarding_tasks', kind: 'json', default: null },
  { name: 'base_currency', kind: 'string', default: 'USD' },
  { name: 'web_analytics_pre_aggregated_tables_enabled', kind: 'nullable-boolean', default: false },
  { name: 'experiment_recalculation_time', kind: 'nullable-string', default: null },
];

export type TeamSettings = Record<string, unknown>;

/** Domains that say nothing about who the user works for, so they make no test-account filter. */
const GENERIC_EMAIL_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'protonmail.com',
  'proton.me',
  'gmx.com',
  'gmx.de',
  'mail.com',
  'yandex.com',
  'qq.com',
  '163.com',
  'msn.com',
  'hey.com',
  'fastmail.com',
  'zoho.com',
]);

/**
 * PostHog's defaults for a new environment. `memberEmails` are the organization's members:
 * the first one on a non-generic domain adds an "internal users" filter, as PostHog does.
 */
export function defaultTeamSettings(memberEmails: readonly string[] = []): TeamSettings {
  const settings: TeamSettings = {};
  for (const field of TEAM_CONFIG_FIELDS) settings[field.name] = structuredClone(field.default);
  const domain = memberEmails
    .map((email) => email.split('@')[1]?.toLowerCase())
    .find((d): d is string => !!d && !GENERIC_EMAIL_DOMAINS.has(d));
  if (domain) {
    settings.test_account_filters = [{ key: 'email', operator: 'not_icontains', value: `@${domain}`, type: 'person' }, LOCALHOST_FILTER];
  }
  return settings;
}

/** Stored settings completed with defaults for fields added after the row was written. */
export function withDefaults(stored: TeamSettings): TeamSettings {
  const settings: TeamSettings = {};
  for (const field of TEAM_CONFIG_FIELDS) {
    settings[field.name] = field.name in stored ? stored[field.name] : structuredClone(field.default);
  }
  return settings;
}
