import { validationError } from './errors.js';

/**
 * The `name` and `description` of saved things (insights, dashboards), read as PostHog's
 * serializers read them: name nullable and at most 400 characters, description nullable (stored
 * as ''). Only the fields present in the body are returned.
 */
export function readNameAndDescription(body: Record<string, unknown>): { name?: string | null; description?: string } {
  const fields: { name?: string | null; description?: string } = {};
  if ('name' in body) {
    if (body.name !== null && typeof body.name !== 'string') throw validationError('Not a valid string.', 'name');
    if (typeof body.name === 'string' && body.name.length > 400) {
      throw validationError('Ensure this field has no more than 400 characters.', 'name', 'max_length');
    }
    fields.name = body.name;
  }
  if ('description' in body) {
    if (body.description !== null && typeof body.description !== 'string') throw validationError('Not a valid string.', 'description');
    fields.description = body.description ?? '';
  }
  return fields;
}
