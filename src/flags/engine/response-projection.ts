/**
 * Projects an evaluation into the body of each flags protocol version, so the HTTP layer only
 * picks the protocol and serialises. Shapes follow PostHog's Rust service (`api/types.rs`) and
 * the contract corpus `legacy_projection.json`:
 *
 *   decide v1          → { featureFlags: [enabled keys] }
 *   decide v2          → { featureFlags: { key: true | variant } }           (enabled only)
 *   decide v3, flags v1 → { featureFlags: { key: value }, featureFlagPayloads, errorsWhileComputingFlags }
 *   decide v4+, flags v2 → { flags: { key: details }, errorsWhileComputingFlags }
 *
 * Every version also takes the request-level extras (requestId, evaluatedAt, quotaLimited), as
 * every one of PostHog's response types carries them.
 *
 * Failed flags are `false` in the legacy map and `failed: true` in the detailed one. Payloads
 * are passed through verbatim (usually JSON strings): no version parses them.
 */
import type { FlagEvaluation, FlagReason, FlagSetEvaluation } from './types.js';

export type FlagsResponseProtocol = 'decide_v1' | 'decide_v2' | 'flags_v1' | 'flags_v2';

/** Also accepted by projectFlagsResponse: decide v3 is the legacy flags v1 body, decide v4 the detailed one. */
export type FlagsResponseProtocolAlias = FlagsResponseProtocol | 'decide_v3' | 'decide_v4';

/** Request-level fields the HTTP layer may want merged into a body. */
export interface ProjectionExtras {
  requestId?: string;
  evaluatedAt?: number;
  quotaLimited?: string[];
}

export interface DecideV1Body {
  featureFlags: string[];
  quotaLimited?: string[];
  requestId?: string;
  evaluatedAt?: number;
}

export interface DecideV2Body {
  featureFlags: Record<string, boolean | string>;
  quotaLimited?: string[];
  requestId?: string;
  evaluatedAt?: number;
}

export interface FlagsV1Body {
  featureFlags: Record<string, boolean | string>;
  featureFlagPayloads: Record<string, unknown>;
  errorsWhileComputingFlags: boolean;
  quotaLimited?: string[];
  requestId?: string;
  evaluatedAt?: number;
}

export interface FlagDetails {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason: FlagReason;
  /**
   * description is always null, as in the reference. has_experiment (whether an experiment uses
   * the flag; SDKs then keep the full `$feature_flag_called` event) is always written there, and
   * Hoglet has no experiments: false.
   */
  metadata: { id: number; version: number; description: null; payload: unknown; has_experiment: false };
  failed?: true;
}

export interface FlagsV2Body {
  flags: Record<string, FlagDetails>;
  errorsWhileComputingFlags: boolean;
  quotaLimited?: string[];
  requestId?: string;
  evaluatedAt?: number;
}

export type FlagsResponseBody = DecideV1Body | DecideV2Body | FlagsV1Body | FlagsV2Body;

/**
 * Which body a request gets. `/decide`: v missing/1 → decide v1, 2 → decide v2, 3 → legacy
 * (flags v1), ≥4 → detailed (flags v2). `/flags`: v ≥ 2, or no v at all, → detailed; else legacy.
 * The HTTP layer first resolves `v` as PostHog does (src/sdk/flags/query-params.ts: defaults, and
 * text that is not an integer reads as 1) and passes a number.
 */
export function selectResponseProtocol(endpoint: 'decide' | 'flags', version: number | string | null | undefined): FlagsResponseProtocol {
  const parsed = version === null || version === undefined || version === '' ? null : Number.parseInt(String(version), 10);
  const v = parsed === null || Number.isNaN(parsed) ? null : parsed;
  if (endpoint === 'flags') return v === null || v >= 2 ? 'flags_v2' : 'flags_v1';
  if (v === null || v <= 1) return 'decide_v1';
  if (v === 2) return 'decide_v2';
  if (v === 3) return 'flags_v1';
  return 'flags_v2';
}

/** The value a flag projects to: its variant, true, or false (failed flags are false). */
export function projectedValue(flag: FlagEvaluation): boolean | string {
  if (flag.failed || !flag.enabled) return false;
  return flag.variant ?? true;
}

function enabledFlags(evaluation: FlagSetEvaluation): FlagEvaluation[] {
  return evaluation.results.filter((flag) => projectedValue(flag) !== false);
}

function withExtras<T extends object>(body: T, extras: ProjectionExtras): T {
  if (extras.quotaLimited) Object.assign(body, { quotaLimited: extras.quotaLimited });
  if (extras.requestId !== undefined) Object.assign(body, { requestId: extras.requestId });
  if (extras.evaluatedAt !== undefined) Object.assign(body, { evaluatedAt: extras.evaluatedAt });
  return body;
}

export function toDecideV1Body(evaluation: FlagSetEvaluation, extras: ProjectionExtras = {}): DecideV1Body {
  return withExtras({ featureFlags: enabledFlags(evaluation).map((flag) => flag.key) }, extras);
}

export function toDecideV2Body(evaluation: FlagSetEvaluation, extras: ProjectionExtras = {}): DecideV2Body {
  return withExtras({ featureFlags: Object.fromEntries(enabledFlags(evaluation).map((flag) => [flag.key, projectedValue(flag)])) }, extras);
}

export function toFlagsV1Body(evaluation: FlagSetEvaluation, extras: ProjectionExtras = {}): FlagsV1Body {
  const featureFlags: Record<string, boolean | string> = {};
  const featureFlagPayloads: Record<string, unknown> = {};
  for (const flag of evaluation.results) {
    featureFlags[flag.key] = projectedValue(flag);
    if (projectedValue(flag) !== false && flag.payload !== null && flag.payload !== undefined) {
      featureFlagPayloads[flag.key] = flag.payload;
    }
  }
  return withExtras({ featureFlags, featureFlagPayloads, errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags }, extras);
}

export function toFlagDetails(flag: FlagEvaluation): FlagDetails {
  const details: FlagDetails = {
    key: flag.key,
    enabled: projectedValue(flag) !== false,
    variant: flag.failed ? null : flag.variant,
    reason: { ...flag.reason },
    metadata: {
      id: flag.metadata.id,
      version: flag.metadata.version,
      description: null,
      payload: flag.failed ? null : (flag.payload ?? null),
      has_experiment: false,
    },
  };
  if (flag.failed) details.failed = true;
  return details;
}

export function toFlagsV2Body(evaluation: FlagSetEvaluation, extras: ProjectionExtras = {}): FlagsV2Body {
  const flags: Record<string, FlagDetails> = {};
  for (const flag of evaluation.results) flags[flag.key] = toFlagDetails(flag);
  return withExtras({ flags, errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags }, extras);
}

/** The response body of `protocol` for this evaluation. */
export function projectFlagsResponse(
  evaluation: FlagSetEvaluation,
  protocol: FlagsResponseProtocolAlias,
  extras: ProjectionExtras = {},
): FlagsResponseBody {
  switch (protocol) {
    case 'decide_v3':
      return toFlagsV1Body(evaluation, extras);
    case 'decide_v4':
      return toFlagsV2Body(evaluation, extras);
    case 'decide_v1':
      return toDecideV1Body(evaluation, extras);
    case 'decide_v2':
      return toDecideV2Body(evaluation, extras);
    case 'flags_v1':
      return toFlagsV1Body(evaluation, extras);
    case 'flags_v2':
      return toFlagsV2Body(evaluation, extras);
  }
}
