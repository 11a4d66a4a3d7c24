/**
 * The SDK configuration an environment's settings produce (PostHog's RemoteConfig): merged into
 * `/decide` responses, into `/flags?config=true`, and served on its own at `/array/<token>/config`
 * and `/array/<token>/config.js` (posthog-js loads the latter before its first `/flags` call).
 * Keys are the ones posthog-js reads; values come from team-fields.ts settings.
 */
import type { Team } from '../../environments/models.js';
import type { remoteConfigSurveys } from '../../surveys/public-cache.js';

/** The surveys part of the config (surveys/public-cache.ts); none: `surveys: false`. */
export type ConfigSurveys = Awaited<ReturnType<typeof remoteConfigSurveys>>;

const NO_SURVEYS: ConfigSurveys = { surveys: false };

type Json = Record<string, unknown>;

/**
 * The contract's values, plus the spelling posthog-js looks for
 * (docs/decisions/0005-decide-supported-compression.md).
 */
export const SUPPORTED_COMPRESSION = ['gzip', 'gzip-js', 'lz64'];

function bool(value: unknown): boolean {
  return value === true;
}

function sessionRecordingConfig(settings: Json): Json | false {
  if (!bool(settings.session_recording_opt_in)) return false;
  const sampleRate = settings.session_recording_sample_rate;
  const linkedFlag = settings.session_recording_linked_flag as Json | null;
  let linked: unknown = null;
  if (linkedFlag && typeof linkedFlag === 'object' && typeof linkedFlag.key === 'string') {
    linked = linkedFlag.variant ? { flag: linkedFlag.key, variant: linkedFlag.variant } : linkedFlag.key;
  }
  const replay = (settings.session_replay_config as Json | null) ?? null;
  return {
    endpoint: '/s/',
    consoleLogRecordingEnabled: bool(settings.capture_console_log_opt_in),
    recorderVersion: 'v2',
    sampleRate: sampleRate === null || sampleRate === undefined ? null : String(sampleRate),
    minimumDurationMilliseconds: settings.session_recording_minimum_duration_milliseconds ?? null,
    linkedFlag: linked,
    networkPayloadCapture: settings.session_recording_network_payload_capture_config ?? null,
    masking: settings.session_recording_masking_config ?? null,
    urlTriggers: settings.session_recording_url_trigger_config ?? [],
    urlBlocklist: settings.session_recording_url_blocklist_config ?? [],
    eventTriggers: settings.session_recording_event_trigger_config ?? [],
    triggerMatchType: settings.session_recording_trigger_match_type_config ?? null,
    scriptConfig: replay && typeof replay === 'object' && 'script_config' in replay ? replay.script_config : null,
    recordCanvas: replay && typeof replay === 'object' ? (replay.record_canvas ?? null) : null,
  };
}

function capturePerformanceConfig(settings: Json): Json | false {
  const network = bool(settings.capture_performance_opt_in);
  const webVitals = bool(settings.autocapture_web_vitals_opt_in);
  if (!network && !webVitals) return false;
  return {
    network_timing: network,
    web_vitals: webVitals,
    web_vitals_allowed_metrics: settings.autocapture_web_vitals_allowed_metrics ?? null,
  };
}

/** The remote config of an environment. `hasFeatureFlags` tells posthog-js whether to call /flags at all. */
export function buildRemoteConfig(team: Team, hasFeatureFlags: boolean, surveys: ConfigSurveys = NO_SURVEYS): Json {
  const settings = team.settings;
  const exceptions = bool(settings.autocapture_exceptions_opt_in);
  return {
    token: team.apiToken,
    supportedCompression: SUPPORTED_COMPRESSION,
    hasFeatureFlags,
    captureDeadClicks: bool(settings.capture_dead_clicks),
    capturePerformance: capturePerformanceConfig(settings),
    autocapture_opt_out: bool(settings.autocapture_opt_out),
    autocaptureExceptions: exceptions ? { endpoint: '/e/' } : false,
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    errorTracking: {
      autocaptureExceptions: exceptions,
      suppressionRules: Array.isArray(settings.autocapture_exceptions_errors_to_ignore)
        ? settings.autocapture_exceptions_errors_to_ignore
        : [],
    },
    sessionRecording: sessionRecordingConfig(settings),
    heatmaps: bool(settings.heatmaps_opt_in),
    // PostHog's RemoteConfig: the surveys themselves when the environment opted in and has some
    // (posthog-js 1.434 reads a non-empty list as "surveys on", then loads /api/surveys/).
    ...surveys,
    defaultIdentifiedOnly: true,
    flagsPersistenceDefault: bool(settings.flags_persistence_default),
    siteApps: [],
  };
}

/**
 * The fields every `/decide` response carries besides the flags (the contract's `config`,
 * `toolbarParams`, `isAuthenticated`, `supportedCompression`) plus the remote config.
 */
export function decideConfigFields(team: Team, hasFeatureFlags: boolean, surveys: ConfigSurveys = NO_SURVEYS): Json {
  const { token: _token, ...config } = buildRemoteConfig(team, hasFeatureFlags, surveys);
  return {
    config: { enable_collect_everything: true },
    toolbarParams: {},
    isAuthenticated: false,
    ...config,
  };
}

/** `/array/<token>/config.js`: a script that hands the config to posthog-js. */
export function remoteConfigScript(team: Team, hasFeatureFlags: boolean, surveys: ConfigSurveys = NO_SURVEYS): string {
  const config = JSON.stringify(buildRemoteConfig(team, hasFeatureFlags, surveys));
  const token = JSON.stringify(team.apiToken);
  return [
    '(function() {',
    '  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};',
    `  window._POSTHOG_REMOTE_CONFIG[${token}] = { config: ${config}, siteApps: [] };`,
    '})();',
    '',
  ].join('\n');
}
