/**
 * The query parameters of `/decide` and `/flags`, read as PostHog's flags service reads them
 * (rust/feature-flags/src/api/types.rs FlagsQueryParams, api/endpoint.rs `flags`), so an SDK gets
 * the same body shape and the same config members from Hoglet as from PostHog:
 *
 * - `v` (alias `version`): an empty value is no value; otherwise a 32-bit integer, and anything
 *   that is not one (`abc`, `2.5`, ` 2`, out of range) reads as 1;
 * - `config`, `only_evaluate_survey_feature_flags`: flags whose mere presence means true (`?config`,
 *   `?config=`, `?config=anything`), false only for `false`, `0`, `no`, `off` in any case;
 * - `/decide` turns config on unless the request says otherwise, and a request with neither `v` nor
 *   `config` is answered as `v=2&config=true`, in that order: so `/decide/` gets decide v1 with the
 *   config and `/flags/` the detailed body with it.
 */
import type { FlagsResponseProtocol } from '../../flags/engine/index.js';
import { selectResponseProtocol } from '../../flags/engine/index.js';
import type { QueryParams } from '../decode-body.js';

/** PostHog's prefix of the flags its surveys target (flags/flag_analytics.rs). */
export const SURVEY_TARGETING_FLAG_PREFIX = 'survey-targeting-';

/** What a `/decide` or `/flags` query asks for. */
export interface FlagsQuery {
  protocol: FlagsResponseProtocol;
  /** The environment's config members go into the answer. */
  withConfig: boolean;
  /** Only flags whose key starts with SURVEY_TARGETING_FLAG_PREFIX are evaluated (posthog-js's advanced_only_evaluate_survey_feature_flags). */
  onlySurveyFlags: boolean;
}

function first(query: QueryParams, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** PostHog's deserialize_optional_bool: presence is true unless the value says false. */
export function queryFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  return !(lower === 'false' || lower === '0' || lower === 'no' || lower === 'off');
}

/** `v`, or its alias `version`; empty is absent (PostHog's empty_string_as_none). */
function rawVersion(query: QueryParams): string | undefined {
  const value = first(query, 'v') ?? first(query, 'version');
  return value === '' ? undefined : value;
}

const I32 = /^[+-]?\d+$/;

/** Rust's `str::parse::<i32>()` with PostHog's fallback: not a 32-bit integer reads as 1. */
export function parseVersion(text: string): number {
  if (!I32.test(text)) return 1;
  const value = Number(text);
  return value >= -2147483648 && value <= 2147483647 ? value : 1;
}

export function readFlagsQuery(endpoint: 'decide' | 'flags', query: QueryParams): FlagsQuery {
  let version = rawVersion(query);
  let config = queryFlag(first(query, 'config'));
  // The decide proxy's request gets the config unless it declined it (X-Original-Endpoint: decide).
  if (endpoint === 'decide' && config === undefined) config = true;
  // Neither given: the newest body, with the config.
  if (version === undefined && config === undefined) {
    version = '2';
    config = true;
  }
  // No v reads as 1 on both endpoints (decide v1, legacy flags): given as a number, because
  // selectResponseProtocol reads a missing /flags version as the detailed body.
  const protocol = selectResponseProtocol(endpoint, version === undefined ? 1 : parseVersion(version));
  return { protocol, withConfig: config === true, onlySurveyFlags: queryFlag(first(query, 'only_evaluate_survey_feature_flags')) === true };
}

/**
 * The version of the minimal GET answer (get_minimal_flags_response): taken as it is, without the
 * POST defaults, so a bare GET gets the legacy body on both endpoints.
 */
export function minimalAnswerVersion(query: QueryParams): number {
  const version = rawVersion(query);
  return version === undefined ? 1 : parseVersion(version);
}
