/**
 * Validation of a subscription create (POST), partial update (PATCH) or full update (PUT) body,
 * reproducing PostHog's baseline `SubscriptionSerializer` (ee/api/subscription.py, a DRF
 * ModelSerializer) and its error envelope (drf-exceptions-hog: only the first error, `invalid` ->
 * `invalid_input`, nested attrs joined with `__`, non-field errors have attr null).
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
import {
  fail,
  FieldError,
  parseBoolean,
  parseChoice,
  parseDateTime,
  parseInteger,
  parsePk,
  parseString,
  pyInt,
  type ResourceStatus,
} from '../../posthog/drf-fields.js';
import { MESSAGES, parseWeekdays } from './fields.js';
import { isValidEmail, webhookUrlError } from './targets.js';
import type { AllowedHosts } from './outbound-address.js';
import { FREQUENCIES, TARGET_TYPES, type Frequency, type TargetType, type Weekday } from './types.js';
import { pyTypeName } from '../../posthog/python-text.js';
import { type ErrorEnvelope, validationEnvelope } from '../../posthog/errors.js';

export { pyTypeName, MESSAGES, isValidEmail, webhookUrlError, type ResourceStatus };

/** The stored subscription a PATCH applies to (only the fields the invariants need). */
export interface ExistingSubscription {
  dashboard: number | null;
  insight: number | null;
  target_type: string;
  target_value: string;
}

export interface ValidationContext {
  /** Present for PATCH and PUT (the update merged onto it); absent for create. */
  existing?: ExistingSubscription | null;
  /**
   * Whether absent required fields are allowed: DRF's partial update (PATCH). Defaults to whether
   * `existing` is given; PUT passes `existing` with `partial: false`, a full update.
   */
  partial?: boolean;
  /** Does dashboard `id` exist ('missing' if not) and belong to the request's team ('other_team' if not)? */
  lookupDashboard: (id: number) => ResourceStatus;
  /** Same for insights. */
  lookupInsight: (id: number) => ResourceStatus;
  /** Whether the environment can deliver to Slack (e.g. has `slack_incoming_webhook` set). */
  slackConfigured: boolean;
  /** Internal hosts a webhook may target (WEBHOOK_ALLOWED_HOSTS); none when absent. */
  allowedHosts?: AllowedHosts;
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

export type ValidationResult = { ok: true; data: SubscriptionWrite } | { ok: false; error: ErrorEnvelope };

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** drf-exceptions-hog's envelope for the first error. */
const envelope = (code: string, detail: string, attr: string | null) => validationEnvelope(detail, attr, code);

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
 * Validate a create (no `ctx.existing`), PATCH (`ctx.existing` given) or PUT (`ctx.existing` and
 * `partial: false`) body. Returns the first error in PostHog's envelope, or the validated,
 * normalised values of the fields present.
 */
export function validateSubscriptionBody(body: unknown, ctx: ValidationContext): ValidationResult {
  const partial = ctx.partial ?? ctx.existing != null;
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
      const err = webhookUrlError(targetValue, ctx.allowedHosts);
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
    // As parsePk: only ids a row can have are looked up (PostgreSQL's bigint refuses larger ones).
    if (typeof v === 'number') return Number.isSafeInteger(Math.trunc(v)) ? Math.trunc(v) : null;
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
export async function validateSubscriptionBodyAsync(body: unknown, ctx: AsyncValidationContext): Promise<ValidationResult> {
  const ids = referencedResourceIds(body);
  const dashboard = ids.dashboard === null ? null : await ctx.lookupDashboard(ids.dashboard);
  const insight = ids.insight === null ? null : await ctx.lookupInsight(ids.insight);
  return validateSubscriptionBody(body, {
    ...ctx,
    lookupDashboard: (id) => (id === ids.dashboard && dashboard !== null ? dashboard : 'missing'),
    lookupInsight: (id) => (id === ids.insight && insight !== null ? insight : 'missing'),
  });
}
