/**
 * `$initial_*` back-fill for server-side flag evaluation (docs/posthog-parity.md), as PostHog's
 * flags service does it (rust/feature-flags/src/flags/flag_matching_utils.rs,
 * populate_missing_initial_properties, called from FeatureFlagMatcher::get_person_properties):
 * after the stored person properties and the request's are merged, a missing `$initial_<x>` is
 * set from `<x>`.
 *
 * Why: ingestion writes `$initial_<x>` a little after it first sees `<x>`, and an SDK only sends
 * the current values; without the back-fill a flag on `$initial_utm_source` would be off for a
 * brand-new visitor whose request says `utm_source`. A stored or supplied `$initial_<x>` (even a
 * null one) is never replaced. Person properties only: group properties are not back-filled
 * there. SDK local evaluation has no such step, so it stays out of the engine.
 */
import { CAMPAIGN_PROPERTIES, EVENT_TO_PERSON_PROPERTIES } from '../../ingestion/core/person-properties.js';

type Json = Record<string, unknown>;

/**
 * `$initial_` key → the key it is filled from: the properties ingestion lifts onto persons (`$x` →
 * `$initial_x`; campaign `x` → `$initial_x`, so `_kx` → `$initial__kx`), the same lists as PostHog's
 * taxonomy (PERSON_PROPERTIES_ADAPTED_FROM_EVENT, CAMPAIGN_PROPERTIES) but for `utm_name`, which
 * posthog-js sends and ingestion lifts, but the flags service's map leaves out.
 */
export const INITIAL_PROPERTY_SOURCES: ReadonlyMap<string, string> = new Map(
  [...EVENT_TO_PERSON_PROPERTIES, ...CAMPAIGN_PROPERTIES]
    .filter((key) => key !== 'utm_name')
    .map((key) => [`$initial_${key.replace('$', '')}`, key] as const),
);

/** [`$initial_` key, source key] pairs for the `$initial_` keys among `readKeys`: only those can change an answer. */
export function initialBackfills(readKeys: Iterable<string>): Array<readonly [string, string]> {
  const pairs: Array<readonly [string, string]> = [];
  for (const key of readKeys) {
    const source = INITIAL_PROPERTY_SOURCES.get(key);
    if (source !== undefined) pairs.push([key, source]);
  }
  return pairs;
}

/** Sets each missing `$initial_` key of `pairs` from its source key, when the properties hold that. */
export function fillMissingInitialProperties(properties: Json, pairs: ReadonlyArray<readonly [string, string]>): void {
  for (const [initial, source] of pairs) {
    if (!Object.hasOwn(properties, initial) && Object.hasOwn(properties, source)) properties[initial] = properties[source];
  }
}
