/**
 * Public surface of the pure feature-flag evaluation engine (PostHog-compatible).
 * See evaluate-flags.ts for the entry points and flag-matching.ts for the pipeline steps.
 */
export type * from './types.js';
export {
  evaluateFlags,
  evaluateFlag,
  flagSetEvaluation,
  toFlagEvaluation,
  failedFlagEvaluation,
  type EvaluateFlagsOptions,
} from './evaluate-flags.js';
export { createEvaluationState, type EvaluationState } from './evaluation-state.js';
export { compileDefinitions, isCompiled, type CompiledDefinitions } from './compiled-definitions.js';
export {
  checkEnrollment,
  checkHoldout,
  holdoutIdentifier,
  groupKeyFor,
  evaluateConditions,
  matchConditionProperties,
  passesConditionRollout,
  resolveVariant,
  hashedVariant,
  resolveIdentifier,
  personIdentifier,
  matchFlagDependency,
  matchFlag,
  type FlagOutcome,
  type IdentifierResolution,
} from './flag-matching.js';
export { filtersShapeProblem, normalizeFlagFilters, payloadFor, type NormalizedFlagFilters } from './flag-filters.js';
export {
  hash01,
  hashBits60,
  flagHash,
  holdoutHash,
  isHashInRollout,
  isHoldoutMember,
  selectVariantForHash,
  truncateIdentifier,
  identifierToString,
  LONG_SCALE,
} from './hashing.js';
export { matchProperty, matchesExact, compileRegex, parsePropertyDate, type MatchEnvironment } from './property-matching.js';
export { PERSON_METADATA_PREFIX, personMetadataKey, personMetadataProperties, judgedPersonProperties } from './person-metadata.js';
export { parseDateInTimezone, parseRelativeDate, fromWallClock, toWallClock, isValidTimezone } from './dates.js';
export { parseVersion, compareVersions, satisfiesRequirement, type SemVersion } from './semver.js';
export {
  createCohortResolver,
  isCohortMember,
  matchCohortFilter,
  matchPropertyGroup,
  FlagEvaluationError,
  type CohortResolver,
} from './cohorts.js';
export { planEvaluationOrder, findCyclicFlags, matchesFlagValue, buildFlagLookup, type EvaluationPlan } from './dependencies.js';
export { REASON_PRIORITY, describeReason, replacesReason } from './reasons.js';
export {
  projectFlagsResponse,
  selectResponseProtocol,
  toDecideV1Body,
  toDecideV2Body,
  toFlagsV1Body,
  toFlagsV2Body,
  toFlagDetails,
  projectedValue,
  type FlagsResponseProtocol,
  type FlagsResponseProtocolAlias,
  type FlagsResponseBody,
  type FlagsV1Body,
  type FlagsV2Body,
  type DecideV1Body,
  type DecideV2Body,
  type FlagDetails,
  type ProjectionExtras,
} from './response-projection.js';
