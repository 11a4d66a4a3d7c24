/**
 * A failure no retry can mend: the server lacks a setting (PostHog's `ImproperlyConfigured` when
 * e-mail is not available). A delivery failing with it fails at once, without retries.
 */
export class DeliveryConfigurationError extends Error {
  override readonly name = 'DeliveryConfigurationError';
}
