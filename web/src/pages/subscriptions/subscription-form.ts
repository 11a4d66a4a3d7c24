/**
 * The subscription form's values and their conversion to and from the API's fields.
 *
 * The server computes the schedule in UTC (PostHog's rrule with a UTC `start_date`), while the
 * form speaks the environment's time zone. The time of day is `start_date`'s; weekdays are those
 * of the UTC date the chosen time falls on, so "Monday 08:00 in Tokyo" is sent as Sunday (23:00
 * UTC) and read back as Monday. Positional monthly rules ("the first Monday") are evaluated in UTC
 * too, so near midnight at a month's edge they can pick the neighbouring week.
 */

// No imports: test/web/subscription-form.test.ts runs this module under Node. The API's shapes are
// restated as far as the form uses them (the same literal types, so api/subscriptions.ts's fit).

/** Index 0 = Monday, as the server's (rrule's) order. */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export type Frequency = 'daily' | 'weekly' | 'monthly' | 'yearly';
export type TargetType = 'email' | 'slack' | 'webhook';

/** The stored fields the form is made from. */
export interface StoredSubscription {
  title: string | null;
  target_type: TargetType;
  target_value: string;
  frequency: Frequency;
  interval: number;
  byweekday: readonly Weekday[] | null;
  bysetpos: number | null;
  start_date: string;
}

/** The fields the form sends. */
export interface SubscriptionBody {
  title: string | null;
  target_type: TargetType;
  target_value: string;
  frequency: Frequency;
  interval: number;
  byweekday: Weekday[] | null;
  bysetpos: number | null;
  start_date: string;
}

export type SetPosition = '1' | '2' | '3' | '4' | '-1';
/** A weekday, or `day`: any day (all seven weekdays with the position: "the last day"). */
export type SetPositionDay = Weekday | 'day';

export interface SubscriptionForm {
  title: string;
  target_type: TargetType;
  emails: { address: string }[];
  slack_channel: string;
  webhook_url: string;
  frequency: Frequency;
  interval: number;
  /** Weekly: the days it is sent on. */
  weekdays: Weekday[];
  /** Monthly: on a day of the month, or on the first/…/last weekday. */
  monthly_mode: 'day_of_month' | 'position';
  day_of_month: number;
  setpos: SetPosition;
  setpos_day: SetPositionDay;
  /** YYYY-MM-DD in the environment's time zone: the first day it may be sent (yearly: the day of the year). */
  start_date: string;
  /** HH:MM in the environment's time zone. */
  time: string;
}

export const POSITIONS: { value: SetPosition; label: string }[] = [
  { value: '1', label: 'first' },
  { value: '2', label: 'second' },
  { value: '3', label: 'third' },
  { value: '4', label: 'fourth' },
  { value: '-1', label: 'last' },
];

export const UNITS: Record<Frequency, [string, string]> = {
  daily: ['day', 'days'],
  weekly: ['week', 'weeks'],
  monthly: ['month', 'months'],
  yearly: ['year', 'years'],
};

export const weekdayLabel = (day: Weekday) => day.charAt(0).toUpperCase() + day.slice(1);

const shiftWeekday = (day: Weekday, by: number): Weekday => WEEKDAYS[(WEEKDAYS.indexOf(day) + by + 7) % 7]!;

/** Days between the UTC calendar date of `instant` and the local date `y-m-d` (-1, 0 or 1). */
function utcDayShift(instant: Date, local: { year: number; month: number; day: number }): number {
  const utcDate = Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate());
  return Math.round((utcDate - Date.UTC(local.year, local.month - 1, local.day)) / 86_400_000);
}

function parseDate(text: string): { year: number; month: number; day: number } {
  const [year, month, day] = text.split('-').map(Number);
  return { year: year!, month: month!, day: day! };
}

function parseTime(text: string): { hour: number; minute: number } {
  const [hour, minute] = text.split(':').map(Number);
  return { hour: hour ?? 0, minute: minute ?? 0 };
}

export function newSubscriptionForm(timeZone: string, now = new Date()): SubscriptionForm {
  const today = wallTime(now, timeZone);
  return {
    title: '',
    target_type: 'email',
    emails: [{ address: '' }],
    slack_channel: '',
    webhook_url: '',
    frequency: 'weekly',
    interval: 1,
    weekdays: [WEEKDAYS[weekdayIndex(today.year, today.month, today.day)]!],
    monthly_mode: 'day_of_month',
    day_of_month: today.day,
    setpos: '1',
    setpos_day: 'monday',
    start_date: dateText(today),
    time: '09:00',
  };
}

export function formFromSubscription(s: StoredSubscription, timeZone: string): SubscriptionForm {
  const start = new Date(s.start_date);
  const local = wallTime(start, timeZone);
  const shift = utcDayShift(start, local);
  const byweekday = (s.byweekday ?? []).map((d) => shiftWeekday(d, -shift));
  const positional = s.frequency === 'monthly' && byweekday.length > 0 && s.bysetpos !== null;
  const value = s.target_value;
  return {
    title: s.title ?? '',
    target_type: s.target_type,
    emails: s.target_type === 'email' ? value.split(',').map((address) => ({ address })) : [{ address: '' }],
    slack_channel: s.target_type === 'slack' ? value : '',
    webhook_url: s.target_type === 'webhook' ? value : '',
    frequency: s.frequency,
    interval: s.interval,
    weekdays: s.frequency === 'weekly' && byweekday.length > 0 ? byweekday : [WEEKDAYS[weekdayIndex(local.year, local.month, local.day)]!],
    monthly_mode: positional ? 'position' : 'day_of_month',
    day_of_month: local.day,
    setpos: positional && POSITIONS.some((p) => p.value === String(s.bysetpos)) ? (String(s.bysetpos) as SetPosition) : '1',
    setpos_day: positional ? (byweekday.length === 7 ? 'day' : byweekday[0]!) : 'monday',
    start_date: dateText(local),
    time: timeText(local),
  };
}

/** The target value the form's fields make: e-mail addresses joined with commas, as PostHog stores them. */
export function targetValue(form: SubscriptionForm): string {
  if (form.target_type === 'email') {
    return form.emails
      .map((e) => e.address.trim())
      .filter(Boolean)
      .join(',');
  }
  return (form.target_type === 'slack' ? form.slack_channel : form.webhook_url).trim();
}

/** The start instant: the start date (monthly by day: that month's chosen day) at the time, in the zone. */
export function startInstant(form: SubscriptionForm, timeZone: string): Date {
  let { year, month, day } = parseDate(form.start_date);
  if (form.frequency === 'monthly' && form.monthly_mode === 'day_of_month') {
    day = form.day_of_month;
    // A month without that day (the 31st in November): the next month that has it.
    while (day > daysInMonth(year, month)) {
      month = month === 12 ? 1 : month + 1;
      if (month === 1) year += 1;
    }
  }
  return instantOf({ year, month, day, ...parseTime(form.time) }, timeZone);
}

export function bodyFromForm(form: SubscriptionForm, timeZone: string): SubscriptionBody {
  const start = startInstant(form, timeZone);
  const shift = utcDayShift(start, wallTime(start, timeZone));
  let byweekday: Weekday[] | null = null;
  let bysetpos: number | null = null;
  if (form.frequency === 'weekly') {
    byweekday = WEEKDAYS.filter((d) => form.weekdays.includes(d)).map((d) => shiftWeekday(d, shift));
  } else if (form.frequency === 'monthly' && form.monthly_mode === 'position') {
    byweekday = form.setpos_day === 'day' ? [...WEEKDAYS] : [shiftWeekday(form.setpos_day, shift)];
    bysetpos = Number(form.setpos);
  }
  return {
    title: form.title.trim() || null,
    target_type: form.target_type,
    target_value: targetValue(form),
    frequency: form.frequency,
    interval: form.interval,
    byweekday,
    bysetpos,
    start_date: start.toISOString(),
  };
}

/** The form field an API error's `attr` belongs to (root when none). */
export function fieldOfAttr(attr: string | null | undefined, targetType: TargetType): keyof SubscriptionForm | 'root' {
  if (!attr) return 'root';
  if (attr === 'target_value') return targetType === 'email' ? 'emails' : targetType === 'slack' ? 'slack_channel' : 'webhook_url';
  if (attr === 'byweekday' || attr.startsWith('byweekday__')) return 'weekdays';
  if (attr === 'bysetpos') return 'setpos';
  const direct: Record<string, keyof SubscriptionForm> = {
    title: 'title',
    target_type: 'target_type',
    frequency: 'frequency',
    interval: 'interval',
    start_date: 'start_date',
  };
  return direct[attr] ?? 'root';
}

// Wall-clock time in a named zone (the environment's), with Intl only: the app ships no date library.

export interface WallTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock time of `instant` in `timeZone`. */
export function wallTime(instant: Date, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute! };
}

const asUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);

/**
 * The instant at which `timeZone`'s clocks show `w` (two passes, for a DST change between the
 * guess and the answer). A wall time a DST change skips gives an instant an hour off it.
 */
export function instantOf(w: WallTime, timeZone: string): Date {
  const guess = asUtc(w);
  const first = guess - (asUtc(wallTime(new Date(guess), timeZone)) - guess);
  const second = guess - (asUtc(wallTime(new Date(first), timeZone)) - first);
  return new Date(asUtc(wallTime(new Date(second), timeZone)) === guess ? second : first);
}

/** Days in `month` (1–12) of `year`. */
export const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Monday = 0 … Sunday = 6 (the server's order) of a calendar date. */
export const weekdayIndex = (year: number, month: number, day: number) => (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export const dateText = (w: Pick<WallTime, 'year' | 'month' | 'day'>) => `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
export const timeText = (w: Pick<WallTime, 'hour' | 'minute'>) => `${pad(w.hour)}:${pad(w.minute)}`;
