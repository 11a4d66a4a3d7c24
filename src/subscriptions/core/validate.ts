/**
 * Validation of a subscription create (POST) or partial update (PATCH) body, reproducing PostHog's
 * baseline `SubscriptionSerializer` (ee/api/subscription.py, a DRF ModelSerializer) and its error
 * envelope (drf-exceptions-hog: only the first error, `invalid` -> `invalid_input`, nested attrs
 * joined with `__`, non-field errors have attr null).
 *
 * Order, as in DRF: every field in declaration order (dashboard, insight, target_type,
 * target_value, frequency, interval, byweekday, bysetpos, count, start_date, until_date, deleted,
 * title, invite_message); the first failing field wins. Only when all fields pass do the
 * object-level checks run (dashboard/insight team, then Hoglet's invariants).
 *
 * Hoglet additions to PostHog's baseline (which validates none of these), as the brief asks:
 *   - interval and count must be >= 1 (PostHog: any 32-bit int);
 *   - bysetpos must be in -366..-1 or 1..366 (dateutil raises, i.e. PostHog answers 500);
 *   - exactly one of dashboard / insight;
 *   - email targets: comma-separated valid addresses (normalised: entries trimmed, joined with ",");
 *   - webhook targets: http(s) URL with a host (messages from PostHog's newer SSRF check);
 *   - slack targets need the environment to have Slack configured.
 * Existence/ownership of dashboards and insights needs storage: it comes in through `lookup*`.
 */
import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';

import { parseDrfDateTime } from './datetime.js';
import {
  FREQUENCIES,
  TARGET_TYPES,
  WEEKDAYS,
  type Frequency,
  type TargetType,
  type ValidationErrorBody,
  type Weekday,
} from './types.js';
import { pyTypeName, pythonStr } from '../../lib/python-text.js';

export { pyTypeName };

export type ResourceStatus = 'ok' | 'other_team' | 'missing';

/** The stored subscription a PATCH applies to (only the fields the invariants need). */
export interface ExistingSubscription {
  dashboard: number | null;
  insight: number | null;
  target_type: string;
  target_value: string;
}

export interface ValidationContext {
  /** Present for PATCH (partial update merged onto it); absent for create. */
  existing?: ExistingSubscription | null;
  /** Does dashboard `id` exist ('missing' if not) and belong to the request's team ('other_team' if not)? */
  lookupDashboard: (id: number) => ResourceStatus;
  /** Same for insights. */
  lookupInsight: (id: number) => ResourceStatus;
  /** Whether the environment can deliver to Slack (e.g. has `slack_incoming_webhook` set). */
  slackConfigured: boolean;
}

/** Validated, normalised values of the fields present in the body (DRF's `validated_data`). */
export interface SubscriptionWrite {
  dashboard?: number | null;
  insight?: number | null;
  target_type?: TargetType;
  target_value?: string;
  frequency?: Frequency;
  interval?: number;
  byweekday?: Weekday[] | null;
  bysetpos?: number | null;
  count?: number | null;
  /** DRF output form, UTC: `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`. */
  start_date?: string;
  until_date?: string | null;
  deleted?: boolean;
  title?: string | null;
  /** Not stored by PostHog (always serialised as null); used for the invite. */
  invite_message?: string | null;
}

export type ValidationResult = { ok: true; data: SubscriptionWrite } | { ok: false; error: ValidationErrorBody };

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

export const MESSAGES = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  noData: 'No data provided',
  notAString: 'Not a valid string.',
  notAnInteger: 'A valid integer is required.',
  stringTooLarge: 'String value too large.',
  notABoolean: 'Must be a valid boolean.',
  nullCharacters: 'Null characters are not allowed.',
  dashboardOtherTeam: 'This dashboard does not belong to your team.',
  insightOtherTeam: 'This insight does not belong to your team.',
  neitherResource: 'Either dashboard or insight is required for an export.',
  bothResources: 'A subscription can have either a dashboard or an insight, not both.',
  bysetposRange: 'bysetpos must be between 1 and 366, or between -366 and -1.',
  invalidEmail: 'Enter a valid email address.',
  webhookScheme: 'Invalid webhook URL: URL must start with http:// or https://',
  webhookHost: 'Invalid webhook URL: Missing host',
  webhookInvalid: 'Invalid webhook URL: Invalid URL',
  slackNotConfigured: 'A Slack integration is required for Slack subscriptions.',
  invalidChoice: (input: unknown) => `"${pythonStr(input)}" is not a valid choice.`,
  maxValue: (n: number) => `Ensure this value is less than or equal to ${n}.`,
  minValue: (n: number) => `Ensure this value is greater than or equal to ${n}.`,
  maxLength: (n: number) => `Ensure this field has no more than ${n} characters.`,
  incorrectPkType: (data: unknown) => `Incorrect type. Expected pk value, received ${pyTypeName(data)}.`,
  doesNotExist: (data: unknown) => `Invalid pk "${pythonStr(data)}" - object does not exist.`,
  notAList: (data: unknown) => `Expected a list of items but got type "${pyTypeName(data)}".`,
  notADict: (data: unknown) => `Invalid data. Expected a dictionary, but got ${pyTypeName(data)}.`,
  surrogate: (codePoint: number) =>
    `Surrogate characters are not allowed: U+${codePoint.toString(16).toUpperCase()}.`,
} as const;

// ---------------------------------------------------------------------------------------------
// Field-level parsing (DRF fields)

class FieldError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly subKey: string | null = null,
  ) {
    super(detail);
  }
}

function fail(code: string, detail: string): never {
  throw new FieldError(code, detail);
}

/** Python int(str) (after DRF strips a trailing ".0*"). */
const PY_INT_RE = /^\s*[+-]?\d+(?:_\d+)*\s*$/;

function pyInt(s: string): number | null {
  if (!PY_INT_RE.test(s)) return null;
  return Number(s.replace(/_/g, '').trim());
}

/** DRF IntegerField.to_internal_value + min/max validators. */
function parseInteger(data: unknown, min: number, max: number): number {
  if (typeof data === 'string' && data.length > 1000) fail('max_string_length', MESSAGES.stringTooLarge);
  let n: number | null = null;
  if (typeof data === 'number') n = Number.isInteger(data) ? data : null;
  else if (typeof data === 'string') n = pyInt(data.replace(/\.0*\s*$/, ''));
  if (n === null) fail('invalid', MESSAGES.notAnInteger);
  if (n > max) fail('max_value', MESSAGES.maxValue(max));
  if (n < min) fail('min_value', MESSAGES.minValue(min));
  return n;
}

/** DRF CharField (trim_whitespace) with optional max_length. */
function parseString(data: unknown, opts: { allowBlank: boolean; maxLength?: number }): string {
  // DRF checks blankness on str(data) first, but only a string can be blank; other types are invalid.
  if (typeof data === 'boolean' || !(typeof data === 'string' || typeof data === 'number')) {
    fail('invalid', MESSAGES.notAString);
  }
  const value = (typeof data === 'string' ? data : pythonStr(data)).trim();
  if (value === '') {
    if (!opts.allowBlank) fail('blank', MESSAGES.blank);
    return '';
  }
  if (opts.maxLength !== undefined && [...value].length > opts.maxLength) {
    fail('max_length', MESSAGES.maxLength(opts.maxLength));
  }
  if (value.includes('\u0000')) fail('null_characters_not_allowed', MESSAGES.nullCharacters);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a valid pair: one astral code point
        continue;
      }
      fail('surrogate_characters_not_allowed', MESSAGES.surrogate(c));
    }
  }
  return value;
}

/** DRF ChoiceField: the choice is looked up by str(data). */
function parseChoice<T extends string>(data: unknown, choices: readonly T[]): T {
  const key = pythonStr(data);
  if (typeof data === 'object' || !(choices as readonly string[]).includes(key)) {
    fail('invalid_choice', MESSAGES.invalidChoice(data));
  }
  return key as T;
}

/** DRF BooleanField. */
function parseBoolean(data: unknown): boolean {
  const TRUE = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
  const FALSE = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false]);
  if (TRUE.has(data)) return true;
  if (FALSE.has(data)) return false;
  return fail('invalid', MESSAGES.notABoolean);
}

/** DRF PrimaryKeyRelatedField over integer pks, existence via `lookup`. Returns the pk. */
function parsePk(data: unknown, lookup: (id: number) => ResourceStatus): { id: number; status: ResourceStatus } {
  let id: number | null = null;
  if (typeof data === 'number') id = Math.trunc(data); // Django's int() on the lookup value
  else if (typeof data === 'string') id = pyInt(data);
  if (id === null) fail('incorrect_type', MESSAGES.incorrectPkType(data));
  const status = Number.isSafeInteger(id) ? lookup(id) : 'missing';
  if (status === 'missing') fail('does_not_exist', MESSAGES.doesNotExist(data));
  return { id, status };
}

function parseDateTime(data: unknown): string {
  const parsed = parseDrfDateTime(data);
  if (!parsed.ok) fail(parsed.code, parsed.detail);
  return parsed.iso;
}

function parseWeekdays(data: unknown): Weekday[] {
  if (typeof data === 'string' || data === null || typeof data !== 'object' || !Array.isArray(data)) {
    fail('not_a_list', MESSAGES.notAList(data));
  }
  const out: Weekday[] = [];
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    try {
      if (item === null || item === undefined) fail('null', MESSAGES.null);
      out.push(parseChoice(item, WEEKDAYS));
    } catch (e) {
      if (e instanceof FieldError) throw new FieldError(e.code, e.detail, String(i));
      throw e;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Object-level checks

// Django's EmailValidator (ASCII after IDNA encoding of the domain).
const EMAIL_USER_RE =
  /^(?:[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(?:\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")$/i;
const EMAIL_DOMAIN_RE = /^(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+(?:[A-Z0-9-]{2,63})$/i;
const EMAIL_LITERAL_RE = /^\[([A-F0-9:.]+)\]$/i;

/** Django's EmailValidator semantics. */
export function isValidEmail(value: string): boolean {
  if (!value || !value.includes('@') || value.length > 320) return false;
  const at = value.lastIndexOf('@');
  const user = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!EMAIL_USER_RE.test(user)) return false;
  if (domain === 'localhost') return true;
  const validDomain = (d: string): boolean => {
    if (EMAIL_DOMAIN_RE.test(d) && !d.endsWith('-')) return true;
    const lit = EMAIL_LITERAL_RE.exec(d);
    return lit !== null && isIP(lit[1] ?? '') !== 0;
  };
  if (validDomain(domain)) return true;
  const ascii = domainToASCII(domain);
  return ascii !== '' && ascii !== domain && validDomain(ascii);
}

/** Returns the error message for a webhook URL, or null when acceptable. */
export function webhookUrlError(value: string): string | null {
  if (value.includes('\\') || value.toLowerCase().includes('%5c')) return MESSAGES.webhookInvalid;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return MESSAGES.webhookScheme;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]/.test(value)) return MESSAGES.webhookHost;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return MESSAGES.webhookInvalid;
  }
  if (!url.hostname) return MESSAGES.webhookHost;
  return null;
}

function envelope(code: string, detail: string, attr: string | null): ValidationErrorBody {
  return { type: 'validation_error', code: code === 'invalid' ? 'invalid_input' : code, detail, attr };
}

// ---------------------------------------------------------------------------------------------

type FieldSpec = {
  name: keyof SubscriptionWrite;
  required: boolean;
  allowNull: boolean;
  parse: (data: unknown, ctx: ValidationContext, refs: Refs) => unknown;
};

interface Refs {
  dashboard?: ResourceStatus;
  insight?: ResourceStatus;
}

const FIELDS: FieldSpec[] = [
  {
    name: 'dashboard',
    required: false,
    allowNull: true,
    parse: (d, ctx, refs) => {
      const r = parsePk(d, ctx.lookupDashboard);
      refs.dashboard = r.status;
      return r.id;
    },
  },
  {
    name: 'insight',
    required: false,
    allowNull: true,
    parse: (d, ctx, refs) => {
      const r = parsePk(d, ctx.lookupInsight);
      refs.insight = r.status;
      return r.id;
    },
  },
  { name: 'target_type', required: true, allowNull: false, parse: (d) => parseChoice(d, TARGET_TYPES) },
  { name: 'target_value', required: true, allowNull: false, parse: (d) => parseString(d, { allowBlank: false }) },
  { name: 'frequency', required: true, allowNull: false, parse: (d) => parseChoice(d, FREQUENCIES) },
  { name: 'interval', required: false, allowNull: false, parse: (d) => parseInteger(d, 1, INT32_MAX) },
  { name: 'byweekday', required: false, allowNull: true, parse: (d) => parseWeekdays(d) },
  {
    name: 'bysetpos',
    required: false,
    allowNull: true,
    parse: (d) => {
      const n = parseInteger(d, INT32_MIN, INT32_MAX);
      if (n === 0 || n < -366 || n > 366) fail('invalid', MESSAGES.bysetposRange);
      return n;
    },
  },
  { name: 'count', required: false, allowNull: true, parse: (d) => parseInteger(d, 1, INT32_MAX) },
  { name: 'start_date', required: true, allowNull: false, parse: (d) => parseDateTime(d) },
  { name: 'until_date', required: false, allowNull: true, parse: (d) => parseDateTime(d) },
  { name: 'deleted', required: false, allowNull: false, parse: (d) => parseBoolean(d) },
  { name: 'title', required: false, allowNull: true, parse: (d) => parseString(d, { allowBlank: true, maxLength: 100 }) },
  { name: 'invite_message', required: false, allowNull: true, parse: (d) => parseString(d, { allowBlank: true }) },
];

/** Fields whose empty string DRF turns into null before validating (relational fields). */
const EMPTY_STRING_IS_NULL = new Set<string>(['dashboard', 'insight']);

/**
 * Validate a create (no `ctx.existing`) or PATCH (`ctx.existing` given) body. Returns the first
 * error in PostHog's envelope, or the validated, normalised values of the fields present.
 */
export function validateSubscriptionBody(body: unknown, ctx: ValidationContext): ValidationResult {
  const partial = ctx.existing != null;
  if (body === null || body === undefined) {
    return { ok: false, error: envelope('null', MESSAGES.noData, null) };
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, error: envelope('invalid', MESSAGES.notADict(body), null) };
  }
  const input = body as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  const refs: Refs = {};

  // 1. Fields, in declaration order; the first error wins.
  for (const field of FIELDS) {
    let raw = Object.hasOwn(input, field.name) ? input[field.name] : undefined;
    if (raw === '' && EMPTY_STRING_IS_NULL.has(field.name)) raw = null;
    if (raw === undefined) {
      if (field.required && !partial) return { ok: false, error: envelope('required', MESSAGES.required, field.name) };
      continue;
    }
    if (raw === null) {
      if (!field.allowNull) return { ok: false, error: envelope('null', MESSAGES.null, field.name) };
      data[field.name] = null;
      continue;
    }
    try {
      data[field.name] = field.parse(raw, ctx, refs);
    } catch (e) {
      if (!(e instanceof FieldError)) throw e;
      const attr = e.subKey === null ? field.name : `${field.name}__${e.subKey}`;
      return { ok: false, error: envelope(e.code, e.detail, attr) };
    }
  }
  const out = data as SubscriptionWrite;

  // 2. Object-level checks (DRF `validate()`), only when every field passed.
  if (out.dashboard != null && refs.dashboard === 'other_team') {
    return { ok: false, error: envelope('invalid', MESSAGES.dashboardOtherTeam, 'dashboard') };
  }
  if (out.insight != null && refs.insight === 'other_team') {
    return { ok: false, error: envelope('invalid', MESSAGES.insightOtherTeam, 'insight') };
  }

  const existing = ctx.existing ?? null;
  const has = (k: keyof SubscriptionWrite): boolean => Object.hasOwn(out, k);

  // Invariants of the merged record, checked when the body touches a field they involve (so that,
  // e.g., a soft delete of an old record is never refused for an unrelated reason).
  if (!partial || has('dashboard') || has('insight')) {
    const dashboard = has('dashboard') ? out.dashboard : (existing?.dashboard ?? null);
    const insight = has('insight') ? out.insight : (existing?.insight ?? null);
    if (dashboard == null && insight == null) {
      return { ok: false, error: envelope('invalid', MESSAGES.neitherResource, null) };
    }
    if (dashboard != null && insight != null) {
      return { ok: false, error: envelope('invalid', MESSAGES.bothResources, null) };
    }
  }

  if (!partial || has('target_type') || has('target_value')) {
    const targetType = has('target_type') ? out.target_type : existing?.target_type;
    const targetValue = has('target_value') ? (out.target_value as string) : (existing?.target_value ?? '');
    if (targetType === 'email') {
      const entries = targetValue.split(',').map((e) => e.trim());
      if (!entries.every(isValidEmail)) {
        return { ok: false, error: envelope('invalid', MESSAGES.invalidEmail, 'target_value') };
      }
      if (has('target_value')) out.target_value = entries.join(',');
    } else if (targetType === 'webhook') {
      const err = webhookUrlError(targetValue);
      if (err) return { ok: false, error: envelope('invalid', err, 'target_value') };
    } else if (targetType === 'slack') {
      if (!ctx.slackConfigured) {
        return { ok: false, error: envelope('invalid', MESSAGES.slackNotConfigured, 'target_type') };
      }
    }
  }

  return { ok: true, data: out };
}

/**
 * The dashboard/insight ids `validateSubscriptionBody` will ask its lookups about (integers as
 * DRF would look them up), so that a caller with async storage can resolve them first.
 */
export function referencedResourceIds(body: unknown): { dashboard: number | null; insight: number | null } {
  const pick = (v: unknown): number | null => {
    if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
    if (typeof v === 'string') {
      const n = pyInt(v);
      return n !== null && Number.isSafeInteger(n) ? n : null;
    }
    return null;
  };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { dashboard: null, insight: null };
  const b = body as Record<string, unknown>;
  return { dashboard: pick(b['dashboard']), insight: pick(b['insight']) };
}

export interface AsyncValidationContext extends Omit<ValidationContext, 'lookupDashboard' | 'lookupInsight'> {
  lookupDashboard: (id: number) => ResourceStatus | Promise<ResourceStatus>;
  lookupInsight: (id: number) => ResourceStatus | Promise<ResourceStatus>;
}

/** `validateSubscriptionBody` with lookups that may be async (resolved up front). */
export async function validateSubscriptionBodyAsync(
  body: unknown,
  ctx: AsyncValidationContext,
): Promise<ValidationResult> {
  const ids = referencedResourceIds(body);
  const dashboard = ids.dashboard === null ? null : await ctx.lookupDashboard(ids.dashboard);
  const insight = ids.insight === null ? null : await ctx.lookupInsight(ids.insight);
  return validateSubscriptionBody(body, {
    ...ctx,
    lookupDashboard: (id) => (id === ids.dashboard && dashboard !== null ? dashboard : 'missing'),
    lookupInsight: (id) => (id === ids.insight && insight !== null ? insight : 'missing'),
  });
}
