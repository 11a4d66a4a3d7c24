import { validationError } from './errors.js';
import { pyTypeName } from './python-text.js';
import { DRF_MESSAGES, drfBoolean } from './drf-fields.js';

/**
 * The data a DRF serializer validates: a JSON object. A missing body reads as an empty one (an
 * empty form, as Django reads it); `null` is DRF's "No data provided", and any other value that is
 * not an object its non-field "Invalid data" error (the envelope gives it no attr).
 */
export function serializerData(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null) throw validationError('No data provided', null, 'null');
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) {
    throw validationError(`Invalid data. Expected a dictionary, but got ${pyTypeName(body)}.`);
  }
  return body as Record<string, unknown>;
}

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

/**
 * The `tags` of saved things (insights, dashboards): a list (DRF's ListField message otherwise)
 * of strings, kept as sent.
 */
export function readStringTags(value: unknown): string[] {
  if (!Array.isArray(value)) throw validationError(DRF_MESSAGES.notAList(value), 'tags', 'not_a_list');
  if (!value.every((tag) => typeof tag === 'string')) throw validationError(DRF_MESSAGES.notAString, 'tags');
  return value;
}

/** DRF BooleanField in a serializer: its exact spellings; null only where the field allows it. */
export function readBoolean(value: unknown, attr: string, nullable?: false): boolean;
export function readBoolean(value: unknown, attr: string, nullable: boolean): boolean | null;
export function readBoolean(value: unknown, attr: string, nullable = false): boolean | null {
  if (value === null) {
    if (nullable) return null;
    throw validationError(DRF_MESSAGES.null, attr, 'null');
  }
  const result = drfBoolean(value);
  if (result === undefined) throw validationError(DRF_MESSAGES.notABoolean, attr, 'invalid');
  return result;
}
