import { ApiError } from '../../api/client';

/**
 * Shows a failed save where it belongs: on the form field PostHog's `attr` names, else above the
 * form (`root`), with the API's `detail` as the message.
 */
export function applyApiError<F extends string>(
  error: unknown,
  fields: readonly F[],
  setError: (name: F | 'root', error: { message: string }) => void,
): void {
  const message = error instanceof Error ? error.message : String(error);
  const attr = error instanceof ApiError ? error.body.attr : null;
  const field = fields.find((name) => name === attr);
  setError(field ?? 'root', { message });
}
