/**
 * PostHog's event timestamp rules (capture-rs `common/types/src/timestamp.rs`, identical in
 * plugin-server `timestamps.ts`; docs/posthog-parity.md), pure with `now` injected.
 *
 *   1. ts = now.
 *   2. If `timestamp` parses: with a usable `sent_at` (and `properties.$ignore_sent_at !== true`)
 *      ts = now + (timestamp − sent_at), which cancels the client's clock skew; else ts = timestamp.
 *   3. A numeric `offset` (ms before sending, posthog-js batching) overrides: ts = now − offset.
 *   4. ts more than 23 h after now → now, warning `event_timestamp_in_future`.
 *   5. ts outside years 0‥9999 → now, warning `ignored_invalid_timestamp`.
 * An unparsable `timestamp` or `sent_at` is ignored with warning `ignored_invalid_timestamp`
 * (plugin-server's behaviour; capture-rs falls back silently). The warnings' details are
 * plugin-server's (`worker/ingestion/timestamps.ts` `parseEventTimestamp`): they name the event by
 * `eventUuid` (and `eventName` for a future timestamp) so a warning can be traced to its event.
 */
import type { IngestionWarning, Properties } from './types.js';

export const FUTURE_EVENT_CUTOFF_MS = 23 * 60 * 60 * 1000;

export interface TimestampInput {
  /** Server receive time. */
  now: Date;
  /** Event `timestamp` as sent (ISO string normally). */
  timestamp?: unknown;
  /** Request `sent_at`: an ISO string from the body, or a Date from `resolveSentAt`. */
  sentAt?: unknown;
  /** Event `offset` as sent. */
  offset?: unknown;
  /** Event properties, for `$ignore_sent_at`. */
  properties?: Properties | undefined;
  /** The event's uuid and name, for the warnings' details. */
  eventUuid?: string | undefined;
  event?: string | undefined;
}

export interface TimestampResult {
  timestamp: Date;
  warnings: IngestionWarning[];
}

export function computeEventTimestamp(input: TimestampInput): TimestampResult {
  const { now } = input;
  const warnings: IngestionWarning[] = [];
  const nowMs = now.getTime();

  let sentAt: Date | undefined;
  const ignoreSentAt = input.properties?.$ignore_sent_at === true;
  if (!ignoreSentAt && input.sentAt !== undefined && input.sentAt !== null && input.sentAt !== '') {
    sentAt = input.sentAt instanceof Date ? validDate(input.sentAt) : parseTimestamp(input.sentAt);
    if (sentAt === undefined) warnings.push(invalidWarning(input, 'sent_at', input.sentAt, 'invalid format'));
  }

  let resultMs = nowMs;
  if (input.timestamp !== undefined && input.timestamp !== null && input.timestamp !== '') {
    const timestamp = parseTimestamp(input.timestamp);
    if (timestamp === undefined) {
      warnings.push(invalidWarning(input, 'timestamp', input.timestamp, 'invalid format'));
    } else {
      resultMs = sentAt ? nowMs + (timestamp.getTime() - sentAt.getTime()) : timestamp.getTime();
    }
  }

  if (typeof input.offset === 'number' && Number.isFinite(input.offset)) {
    resultMs = nowMs - Math.trunc(input.offset);
  }

  if (resultMs - nowMs > FUTURE_EVENT_CUTOFF_MS) {
    warnings.push({
      type: 'event_timestamp_in_future',
      details: {
        timestamp: input.timestamp ?? '',
        sentAt: input.sentAt instanceof Date ? input.sentAt.toISOString() : (input.sentAt ?? ''),
        offset: input.offset ?? '',
        now: now.toISOString(),
        result: safeIso(resultMs),
        eventUuid: input.eventUuid,
        eventName: input.event,
      },
    });
    resultMs = nowMs;
  }
  if (!inSupportedRange(resultMs)) {
    const warning = invalidWarning(input, 'timestamp', input.timestamp ?? input.offset ?? '', 'out of bounds');
    warning.details.offset = input.offset;
    warning.details.parsed_year = new Date(resultMs).getUTCFullYear();
    warnings.push(warning);
    resultMs = nowMs;
  }
  return { timestamp: new Date(resultMs), warnings };
}

/**
 * The request's `sent_at`: the body value (batch envelope, ISO) wins; otherwise query `sent_at` or
 * its alias `_` as epoch milliseconds (posthog-js `_=<ms>`). Query values in seconds (≤ year 2020
 * when read as ms) are ignored, as capture-rs does. Returns undefined when none is usable.
 */
export function resolveSentAt(bodySentAt: unknown, query?: Record<string, string | string[] | undefined>): Date | string | undefined {
  if (typeof bodySentAt === 'string' && bodySentAt !== '') return bodySentAt;
  for (const key of ['sent_at', '_']) {
    const raw = query?.[key];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined || !/^\d+$/.test(value)) continue;
    const ms = Number(value);
    const date = new Date(ms);
    if (Number.isFinite(ms) && date.getUTCFullYear() > 2020 && inSupportedRange(ms)) return date;
  }
  return undefined;
}

const ISO_LIKE = /^(-?\d{4,6})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Parses the timestamp formats PostHog's parsers accept: RFC 3339 / ISO 8601 (with `Z`, `±HH`,
 * `±HHMM`, `±HH:MM`), space instead of `T`, date-only and naive date-times (read as UTC, so the
 * result never depends on the server's zone), RFC 2822, and numeric epochs (numbers or digit
 * strings; below 1e11 they are seconds, otherwise milliseconds). Undefined when unparsable.
 */
export function parseTimestamp(value: unknown): Date | undefined {
  if (typeof value === 'number') return epoch(value);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^-?\d+(\.\d+)?$/.test(text) && !/^\d{4}$/.test(text)) return epoch(Number(text));

  const iso = ISO_LIKE.exec(text);
  if (iso) return fromIsoParts(iso);

  // RFC 2822 and other textual forms. Without a zone JavaScript would read local time, so pin UTC.
  const hasZone = /(?:\b(?:GMT|UTC|Z)\b|[+-]\d{2}:?\d{2})\s*$/i.test(text);
  const ms = Date.parse(hasZone ? text : `${text} UTC`);
  return Number.isNaN(ms) ? undefined : validDate(new Date(ms));
}

function fromIsoParts(match: RegExpExecArray): Date | undefined {
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Math.min(Number(s), 59); // a leap second is read as :59, like chrono's parsers
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || Number(s) > 60) return undefined;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, ms);
  let offsetMinutes = 0;
  const z = zone.toUpperCase();
  if (z !== 'Z' && z !== 'UTC' && z !== 'GMT') {
    const sign = z.startsWith('-') ? -1 : 1;
    const digits = z.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return validDate(new Date(utc.getTime() - offsetMinutes * 60_000));
}

function epoch(value: number): Date | undefined {
  if (!Number.isFinite(value)) return undefined;
  const ms = Math.abs(value) < 1e11 ? value * 1000 : value;
  return validDate(new Date(Math.trunc(ms)));
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

function validDate(date: Date): Date | undefined {
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The first and last instants of years 0 to 9999 (UTC): bounds instead of a Date per check. */
const FIRST_SUPPORTED_MS = new Date(0).setUTCFullYear(0, 0, 1);
const LAST_SUPPORTED_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function inSupportedRange(ms: number): boolean {
  return ms >= FIRST_SUPPORTED_MS && ms <= LAST_SUPPORTED_MS;
}

function safeIso(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

function invalidWarning(input: TimestampInput, field: string, value: unknown, reason: string): IngestionWarning {
  return { type: 'ignored_invalid_timestamp', details: { eventUuid: input.eventUuid ?? '', field, value, reason } };
}
