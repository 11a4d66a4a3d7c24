import { pyTruthy } from './stages.js';

/** The fields of a feature posthog-js is sent (a stored feature has more). */
export interface PublicFeatureSource {
  id: string;
  name: string;
  description: string;
  stage: string;
  documentationUrl: string;
  payload: unknown;
}

/**
 * PostHog's MinimalEarlyAccessFeatureSerializer: what posthog-js reads (its EarlyAccessFeature
 * type), also a flag's `features`. `payload` is `{}` when empty.
 */
export function publicFeature(feature: PublicFeatureSource, flagKey: string | null) {
  return {
    id: feature.id,
    name: feature.name,
    description: feature.description,
    stage: feature.stage,
    documentationUrl: feature.documentationUrl,
    flagKey,
    payload: pyTruthy(feature.payload) ? feature.payload : {},
  };
}
