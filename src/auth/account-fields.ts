/**
 * The account fields PostHog's serializers read (LoginSerializer, UserSerializer, the invite and
 * reset serializers), with DRF's codes and messages; a refused field throws PostHog's envelope.
 */
import { validationError } from '../posthog/errors.js';
import { DRF_MESSAGES, FieldError, parseString } from '../posthog/drf-fields.js';
import { isValidEmail } from '../subscriptions/core/targets.js';
import { MAX_PASSWORD_LENGTH, passwordProblem } from './passwords.js';

type Body = Record<string, unknown>;

function checked<T>(attr: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FieldError) throw validationError(error.detail, attr, error.code);
    throw error;
  }
}

/** A required field: missing or null is DRF's `required` / `null`. */
function present(body: Body, attr: string): unknown {
  if (!(attr in body) || body[attr] === undefined) throw validationError(DRF_MESSAGES.required, attr, 'required');
  if (body[attr] === null) throw validationError(DRF_MESSAGES.null, attr, 'null');
  return body[attr];
}

/** DRF EmailField (max 254, as Django's EmailField). */
export function readEmail(body: Body, attr = 'email'): string {
  const value = checked(attr, () => parseString(present(body, attr), { allowBlank: false, maxLength: 254 }));
  if (!isValidEmail(value)) throw validationError(DRF_MESSAGES.invalidEmail, attr, 'invalid');
  return value;
}

/** A password as sent: a string, not trimmed (DRF's trim_whitespace is off for passwords in PostHog's forms), bounded. */
export function readRawPassword(body: Body, attr = 'password'): string {
  const value = present(body, attr);
  if (typeof value !== 'string') throw validationError(DRF_MESSAGES.notAString, attr, 'invalid');
  if (value === '') throw validationError(DRF_MESSAGES.blank, attr, 'blank');
  if (value.length > MAX_PASSWORD_LENGTH) throw validationError(DRF_MESSAGES.maxLength(MAX_PASSWORD_LENGTH), attr, 'max_length');
  return value;
}

/** A new password: Django's validators (minimum length) as PostHog reports them, `{password: [messages]}`. */
export function readNewPassword(body: Body, attr = 'password'): string {
  const value = readRawPassword(body, attr);
  const problem = passwordProblem(value);
  if (problem) throw validationError(problem.detail, attr, 'invalid');
  return value;
}

/** A name field (first_name, last_name): DRF CharField, blank allowed, max 150 (Django's User). */
export function readName(
  body: Body,
  attr: string,
  opts: { required: boolean; maxLength?: number } = { required: false },
): string | undefined {
  if (!(attr in body) || body[attr] === undefined) {
    if (opts.required) throw validationError(DRF_MESSAGES.required, attr, 'required');
    return undefined;
  }
  if (body[attr] === null) throw validationError(DRF_MESSAGES.null, attr, 'null');
  return checked(attr, () => parseString(body[attr], { allowBlank: !opts.required, maxLength: opts.maxLength ?? 150 }));
}

/** Case-folded e-mail, the key failed logins are counted under. */
export const emailKey = (email: string) => email.trim().toLowerCase();
