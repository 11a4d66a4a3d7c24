/**
 * Subscription schedule: the recurrence rule and `next_delivery_date`, as PostHog computes them
 * (`Subscription.rrule` / `set_next_delivery_date` in posthog/models/subscription.py, a
 * python-dateutil `rrule`). The `rrule` npm package is a port of dateutil's; all dates are UTC.
 *
 * PostHog's rule:
 *   freq      = {daily: DAILY, weekly: WEEKLY, monthly: MONTHLY, yearly: YEARLY}[frequency]
 *   dtstart   = start_date (dateutil drops sub-second precision)
 *   interval  = interval, count = count, until = until_date (inclusive)
 *   byweekday = the set of weekdays if byweekday is non-empty, else none (defaults apply:
 *               weekly repeats on start_date's weekday, monthly on its day of month, yearly on
 *               its month and day)
 *   bysetpos  = bysetpos, only when byweekday is non-empty
 * next_delivery_date = first occurrence strictly after max(from, now + 15 minutes), null if none.
 */
import rrulePkg from 'rrule';
import type { Frequency as RRuleFrequency, Options as RRuleOptions, RRule as RRuleType } from 'rrule';

import { parseDrfDateTime } from '../../posthog/drf-datetime.js';
import { FREQUENCIES, WEEKDAYS, type Frequency, type ScheduleFields } from './types.js';

// rrule ships CommonJS only: under Node's ESM loader only the default export is reliable.
const { RRule } = rrulePkg;

export type { RRuleType as RRule };

/** PostHog schedules (and lets the scheduler pick up) deliveries up to 15 minutes early. */
export const DELIVERY_BUFFER_MS = 15 * 60 * 1000;

const DAY_MS = 86_400_000;

const FREQ_MAP: Record<Frequency, RRuleFrequency> = {
  daily: RRule.DAILY,
  weekly: RRule.WEEKLY,
  monthly: RRule.MONTHLY,
  yearly: RRule.YEARLY,
};

/** Convert a stored date (Date or ISO-8601 string, naive = UTC) to a `Date`. Throws on garbage. */
export function toUtcDate(value: Date | string): Date {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError('Invalid date');
    return value;
  }
  const parsed = parseDrfDateTime(value);
  if (!parsed.ok) throw new RangeError(`Invalid date: ${JSON.stringify(value)}`);
  return parsed.value.date;
}

function truncateToSecond(d: Date): Date {
  return new Date(d.getTime() - (((d.getTime() % 1000) + 1000) % 1000));
}

interface NormalizedSchedule {
  freq: RRuleFrequency;
  frequency: Frequency;
  interval: number;
  count: number | null;
  dtstart: Date;
  until: Date | null;
  /** Unique weekday indexes (0 = Monday), sorted; null when byweekday is empty/absent. */
  weekdays: number[] | null;
  bysetpos: number | null;
}

function normalize(s: ScheduleFields): NormalizedSchedule {
  if (!(FREQUENCIES as readonly string[]).includes(s.frequency)) {
    throw new RangeError(`Unknown frequency: ${JSON.stringify(s.frequency)}`);
  }
  const frequency = s.frequency as Frequency;
  const interval = s.interval ?? 1;
  if (!Number.isInteger(interval) || interval < 1) throw new RangeError(`Invalid interval: ${interval}`);
  const count = s.count ?? null;
  if (count !== null && (!Number.isInteger(count) || count < 1)) throw new RangeError(`Invalid count: ${count}`);

  let weekdays: number[] | null = null;
  if (s.byweekday && s.byweekday.length > 0) {
    const set = new Set<number>();
    for (const name of s.byweekday) {
      const idx = (WEEKDAYS as readonly string[]).indexOf(name);
      if (idx < 0) throw new RangeError(`Unknown weekday: ${JSON.stringify(name)}`);
      set.add(idx);
    }
    weekdays = [...set].sort((a, b) => a - b);
  }
  const bysetpos = weekdays ? (s.bysetpos ?? null) : null;
  if (bysetpos !== null && (!Number.isInteger(bysetpos) || bysetpos === 0 || bysetpos < -366 || bysetpos > 366)) {
    // dateutil raises the same ValueError.
    throw new RangeError('bysetpos must be between 1 and 366, or between -366 and -1');
  }
  return {
    freq: FREQ_MAP[frequency],
    frequency,
    interval,
    count,
    dtstart: truncateToSecond(toUtcDate(s.start_date)),
    until: s.until_date == null ? null : toUtcDate(s.until_date),
    weekdays,
    bysetpos,
  };
}

function baseOptions(n: NormalizedSchedule): Partial<RRuleOptions> {
  const opts: Partial<RRuleOptions> = {
    freq: n.freq,
    dtstart: n.dtstart,
    interval: n.interval,
    wkst: RRule.MO,
  };
  if (n.count !== null) opts.count = n.count;
  if (n.until !== null) opts.until = n.until;
  if (n.weekdays) opts.byweekday = n.weekdays;
  if (n.bysetpos !== null) opts.bysetpos = n.bysetpos;
  return opts;
}

/** PostHog's recurrence rule for a subscription (byweekday de-duplicated and ordered, as dateutil does). */
export function buildRRule(s: ScheduleFields): RRuleType {
  return new RRule(baseOptions(normalize(s)));
}

/**
 * A string identifying the schedule. PostHog recomputes `next_delivery_date` on save only when
 * `str(rrule)` changed; compare these keys to reproduce that (e.g. bysetpos without byweekday,
 * the order of byweekday and sub-second start_date changes do not count as a change).
 */
export function scheduleKey(s: ScheduleFields): string {
  return buildRRule(s).toString();
}

/** True when the schedule of `after` differs from `before` (so next_delivery_date must be recomputed). */
export function scheduleChanged(before: ScheduleFields, after: ScheduleFields): boolean {
  return scheduleKey(before) !== scheduleKey(after);
}

/**
 * True when no period can ever produce an occurrence (dateutil would scan to year 9999 before
 * giving up, which takes seconds): bysetpos asks for a position beyond the largest possible
 * per-period set, or a daily rule stepping whole weeks never meets its weekdays.
 */
function neverOccurs(n: NormalizedSchedule): boolean {
  if (!n.weekdays) return false;
  // Daily every 7k days only ever lands on start_date's weekday.
  if (n.frequency === 'daily' && n.interval % 7 === 0 && !n.weekdays.includes((n.dtstart.getUTCDay() + 6) % 7)) {
    return true;
  }
  if (n.bysetpos === null) return false;
  const k = n.weekdays.length;
  const maxPerPeriod = { daily: 1, weekly: k, monthly: Math.min(31, 5 * k), yearly: Math.min(366, 53 * k) }[n.frequency];
  return Math.abs(n.bysetpos) > maxPerPeriod;
}

/**
 * A rule with the same occurrences as PostHog's from `from` onwards, but whose dtstart has been
 * moved forward by whole periods so that iteration does not walk every period since a start_date
 * far in the past. Only possible without `count` (which counts from the original start).
 */
function ruleFrom(n: NormalizedSchedule, from: Date): RRuleType {
  const opts = baseOptions(n);
  const start = n.dtstart;
  if (n.count !== null || from.getTime() <= start.getTime()) return new RRule(opts);
  if (n.frequency === 'daily' || n.frequency === 'weekly') {
    const periodMs = n.interval * (n.frequency === 'daily' ? 1 : 7) * DAY_MS;
    const k = Math.floor((from.getTime() - start.getTime()) / periodMs) - 1;
    if (k > 0) {
      opts.dtstart = new Date(start.getTime() + k * periodMs);
      // Weekly without byweekday repeats on start_date's weekday; shifting by whole weeks keeps it.
    }
  } else if (n.frequency === 'monthly') {
    const months = (from.getUTCFullYear() - start.getUTCFullYear()) * 12 + (from.getUTCMonth() - start.getUTCMonth());
    const k = Math.floor(months / n.interval) - 1;
    if (k > 0) {
      const d = new Date(start.getTime());
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + k * n.interval);
      opts.dtstart = d;
      // Without byweekday the rule repeats on start_date's day of month: make that explicit,
      // since the shifted dtstart is on the 1st.
      if (!n.weekdays) opts.bymonthday = [start.getUTCDate()];
    }
  }
  return new RRule(opts);
}

/** First occurrence strictly after `after` (or at it, when `inclusive`), or null when exhausted. */
export function occurrenceAfter(s: ScheduleFields, after: Date, inclusive = false): Date | null {
  const n = normalize(s);
  if (neverOccurs(n)) return null;
  return ruleFrom(n, after).after(after, inclusive);
}

/**
 * PostHog's `set_next_delivery_date(from_dt)`: the first occurrence strictly after
 * max(from ?? now + 15 min, now + 15 min); null when the rule is exhausted (count used up,
 * until_date passed). On create/schedule change call it without `from`; after a delivery call it
 * with the `next_delivery_date` that was just delivered.
 */
export function nextDeliveryDate(s: ScheduleFields, now: Date, from?: Date | string | null): Date | null {
  const floor = now.getTime() + DELIVERY_BUFFER_MS;
  const fromMs = from == null ? floor : toUtcDate(from).getTime();
  return occurrenceAfter(s, new Date(Math.max(fromMs, floor)), false);
}

/**
 * The next_delivery_date to store when saving a subscription, as PostHog's `Subscription.save()`:
 * recomputed from now on create (`before` absent) or when the schedule changed (`scheduleChanged`);
 * otherwise the stored value is kept (editing title, target, deleted... never moves it).
 */
export function nextDeliveryDateOnSave(
  after: ScheduleFields,
  now: Date,
  before?: { schedule: ScheduleFields; next_delivery_date: Date | string | null } | null,
): Date | null {
  if (!before || scheduleChanged(before.schedule, after)) return nextDeliveryDate(after, now);
  return before.next_delivery_date == null ? null : toUtcDate(before.next_delivery_date);
}

export interface OccurrencesBetweenOptions {
  /** Include occurrences equal to `after` / `before` (default false for both, like rrule.between). */
  inclusive?: boolean;
  /** Stop after this many occurrences (default 1000). */
  limit?: number;
}

/** Occurrences in (after, before) — or [after, before] when inclusive — oldest first, at most `limit`. */
export function occurrencesBetween(s: ScheduleFields, after: Date, before: Date, options: OccurrencesBetweenOptions = {}): Date[] {
  const { inclusive = false, limit = 1000 } = options;
  const n = normalize(s);
  if (neverOccurs(n) || limit <= 0 || before.getTime() < after.getTime()) return [];
  return ruleFrom(n, after).between(after, before, inclusive, (_d, i) => i < limit);
}

/** Number of occurrences in (after, before], counting at most `cap`. */
function countBetween(n: NormalizedSchedule, after: Date, before: Date, cap: number): number {
  if (before.getTime() <= after.getTime()) return 0;
  const rule = ruleFrom(n, after);
  let c = 0;
  rule.between(after, before, true, (d) => {
    if (d.getTime() === after.getTime()) return true; // exclusive lower bound
    c += 1;
    return c < cap;
  });
  return c;
}

/** Scheduler test: PostHog delivers every subscription whose next_delivery_date <= now + 15 min. */
export function isDue(nextDelivery: Date | string | null | undefined, now: Date): boolean {
  if (nextDelivery == null) return false;
  return toUtcDate(nextDelivery).getTime() <= now.getTime() + DELIVERY_BUFFER_MS;
}

export type DeliveryPlan =
  | {
      due: false;
      /** Unchanged stored value. */
      next_delivery_date: Date | null;
    }
  | {
      due: true;
      /** The stored next_delivery_date being served (PostHog keys the email campaign on it). */
      scheduled_for: Date;
      /** The most recent occurrence at or before now + 15 min (>= scheduled_for): what the report is "for". */
      latest_occurrence: Date;
      /**
       * Occurrences after scheduled_for up to now + 15 min that are collapsed into this single
       * delivery (missed while the server was down). Counted up to 10000.
       */
      skipped: number;
      /** The value to store after delivering: first occurrence after max(scheduled_for, now + 15 min). */
      next_delivery_date: Date | null;
    };

/**
 * What a scheduler run at `now` should do for one subscription, PostHog-style: if the stored
 * next_delivery_date is due (<= now + 15 min) deliver exactly once, however many occurrences
 * were missed, then move next_delivery_date past now + 15 min (missed occurrences are skipped,
 * never replayed). If delivery takes long, recompute the new value with
 * `nextDeliveryDate(s, finishedAt, scheduled_for)` as PostHog does after sending.
 */
export function planDelivery(s: ScheduleFields, storedNext: Date | string | null | undefined, now: Date): DeliveryPlan {
  if (storedNext == null) return { due: false, next_delivery_date: null };
  const scheduled = toUtcDate(storedNext);
  const horizon = new Date(now.getTime() + DELIVERY_BUFFER_MS);
  if (scheduled.getTime() > horizon.getTime()) return { due: false, next_delivery_date: scheduled };
  const n = normalize(s);
  let latest = scheduled;
  let skipped = 0;
  if (!neverOccurs(n)) {
    const before = ruleFrom(n, scheduled).before(horizon, true);
    if (before && before.getTime() > scheduled.getTime()) {
      latest = before;
      skipped = countBetween(n, scheduled, horizon, 10_000);
    }
  }
  return {
    due: true,
    scheduled_for: scheduled,
    latest_occurrence: latest,
    skipped,
    next_delivery_date: nextDeliveryDate(s, now, scheduled),
  };
}
