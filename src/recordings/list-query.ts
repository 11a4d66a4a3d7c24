/**
 * The recordings list's query string, read the way PostHog reads its `RecordingsQuery`: every value
 * may be JSON (`distinct_ids=["a","b"]`), dates are absolute or relative (`-3d`), `date_from`
 * defaults to three days back. Hoglet supports the filters its storage can answer: date range,
 * distinct ids, person, session ids and duration bounds.
 */
import { validationError } from '../posthog/errors.js';
import type { RecordingFilter } from './store.js';

const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 604_800_000, m: 2_592_000_000, y: 31_536_000_000 } as const;

export interface RecordingListQuery {
  filter: Omit<RecordingFilter, 'distinctIds'> & { distinctIds?: string[] };
  /** Person uuid (or numeric id) whose distinct ids the list is limited to. */
  person?: string;
}

function first(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Relative (`-3d`, `-24h`, `-1w`, `-1m`, `-1y`), `all`, or anything `Date.parse` reads. */
export function parseDate(value: string, attr: string, now = Date.now()): string | undefined {
  if (value === 'all') return undefined;
  const relative = /^-(\d+)([hdwmy])$/.exec(value);
  if (relative) return new Date(now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]).toISOString();
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw validationError(`"${value}" is not a valid date.`, attr);
  return new Date(ms).toISOString();
}

function stringList(raw: string, attr: string): string[] {
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // a bare value: one id
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (!list.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw validationError('Must be a list of strings.', attr);
  }
  return list.map(String);
}

function number(raw: string, attr: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n)) throw validationError('A valid number is required.', attr);
  return n;
}

/** `having_predicates=[{"key":"duration","operator":"gt","value":60}]`: PostHog's duration filter. */
function durationBounds(raw: string): { min?: number; max?: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationError('having_predicates must be JSON.', 'having_predicates');
  }
  const out: { min?: number; max?: number } = {};
  for (const p of Array.isArray(parsed) ? parsed : []) {
    const predicate = p as { key?: unknown; operator?: unknown; value?: unknown };
    if (predicate.key !== 'duration') {
      throw validationError(`Filtering on "${String(predicate.key)}" is not supported.`, 'having_predicates');
    }
    const value = number(String(predicate.value), 'having_predicates');
    // Durations are whole seconds: "more than 59.5" is "at least 60".
    if (predicate.operator === 'gt') out.min = Math.floor(value) + 1;
    else if (predicate.operator === 'lt') out.max = Math.ceil(value) - 1;
    else throw validationError(`Operator "${String(predicate.operator)}" is not supported.`, 'having_predicates');
  }
  return out;
}

const ORDERS: Record<string, RecordingFilter['order']> = {
  start_time: 'start_time',
  duration: 'duration',
  recording_duration: 'duration',
};

export function readRecordingListQuery(query: Record<string, unknown>): RecordingListQuery {
  const dateFrom = first(query.date_from) ?? '-3d';
  const dateTo = first(query.date_to);
  const orderRaw = first(query.order) ?? 'start_time';
  const order = Object.hasOwn(ORDERS, orderRaw) ? ORDERS[orderRaw] : undefined;
  if (!order) throw validationError(`Ordering by "${orderRaw}" is not supported.`, 'order');
  const direction = (first(query.order_direction) ?? 'DESC').toUpperCase();
  if (direction !== 'ASC' && direction !== 'DESC') throw validationError('Must be ASC or DESC.', 'order_direction');

  const filter: RecordingListQuery['filter'] = {
    dateFrom: parseDate(dateFrom, 'date_from'),
    dateTo: dateTo === undefined ? undefined : parseDate(dateTo, 'date_to'),
    order,
    direction: direction === 'ASC' ? 'asc' : 'desc',
  };
  const distinctIds = [
    ...(first(query.distinct_id) !== undefined ? [first(query.distinct_id)!] : []),
    ...(first(query.distinct_ids) !== undefined ? stringList(first(query.distinct_ids)!, 'distinct_ids') : []),
  ];
  if (distinctIds.length > 0) filter.distinctIds = distinctIds;
  const sessionIds = first(query.session_ids);
  if (sessionIds !== undefined) filter.sessionIds = stringList(sessionIds, 'session_ids');

  const bounds = first(query.having_predicates) !== undefined ? durationBounds(first(query.having_predicates)!) : {};
  const minDuration = first(query.min_duration);
  if (minDuration !== undefined) bounds.min = number(minDuration, 'min_duration');
  if (bounds.min !== undefined) filter.minDuration = bounds.min;
  if (bounds.max !== undefined) filter.maxDuration = bounds.max;

  const person = first(query.person_uuid) ?? first(query.person_id);
  return person === undefined ? { filter } : { filter, person };
}
