import { validationError } from '../posthog/errors.js';

/**
 * The JSON of a list's `properties` query parameter (events, persons). Text that is not JSON is
 * PostHog's 400: BaseFilter's message, raised in the view, with no attr.
 */
export function parsePropertiesJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw validationError('Properties are unparsable!');
  }
}
