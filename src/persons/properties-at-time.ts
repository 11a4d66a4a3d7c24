/**
 * A person's properties as they stood at a moment (PostHog's PersonViewSet `properties_at_time`,
 * posthog/models/person/point_in_time_properties.py): rebuilt from the `$set` the events of the
 * person's distinct ids carried up to then (and, when asked, the `$set_once` of `$set_once`
 * events), oldest first, over the two years before the moment, at most 100,000 updates.
 */
import type { Kysely } from 'kysely';
import type { DialectName } from '../db/database.js';
import { jsonValueText } from '../db/json-path.js';
import type { Schema } from '../db/schema.js';
import { pythonFromIsoformat, type PythonDateTimeFields } from '../lib/drf-datetime.js';

type Db = Kysely<Schema>;

/** PostHog's DEFAULT_PROPERTY_ROW_LIMIT. */
export const PROPERTY_ROW_LIMIT = 100_000;
/** PostHog's _HISTORY_SCAN_FLOOR: 365 × 2 days before the moment. */
const HISTORY_MS = 730 * 24 * 3600 * 1000;
/** Distinct ids per query (a person merged from many visits can have tens of thousands). */
const IDS_PER_QUERY = 1000;

/** The moment asked for: the instant (ms, and the microseconds past it) and Python's isoformat of it. */
export interface PointInTime {
  ms: number;
  extraMicros: number;
  isoformat: string;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

function wallMs(f: PythonDateTimeFields): number {
  const d = new Date(0);
  d.setUTCFullYear(f.year, f.month - 1, f.day);
  d.setUTCHours(f.hour, f.minute, f.second, 0);
  return d.getTime();
}

/** Python's `+HH:MM[:SS[.ffffff]]` of an offset in microseconds. */
function offsetText(micros: number): string {
  const sign = micros < 0 ? '-' : '+';
  const abs = Math.abs(micros);
  const seconds = Math.floor(abs / 1_000_000);
  const rest = abs % 1_000_000;
  let text = `${sign}${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}`;
  if (seconds % 60 !== 0 || rest !== 0) text += `:${pad(seconds % 60, 2)}`;
  if (rest !== 0) text += `.${pad(rest, 6)}`;
  return text;
}

/**
 * The `timestamp` parameter as the action reads it: ending in `Z`, the rest is read as UTC
 * (`fromisoformat(ts[:-1]).replace(tzinfo=UTC)`); with a `+` or more than two `-`, as written
 * (its own offset); else as UTC. Undefined where Python's `fromisoformat` refuses it.
 */
export function readPointInTime(text: string): PointInTime | undefined {
  let fields: PythonDateTimeFields | null;
  let offset: number;
  // Naive here: no `.replace(tzinfo=UTC)` made it aware (a `+` that is the date-time separator).
  let naive = false;
  if (text.endsWith('Z')) {
    fields = pythonFromIsoformat(text.slice(0, -1));
    offset = 0;
  } else if (text.includes('+') || text.split('-').length - 1 > 2) {
    fields = pythonFromIsoformat(text);
    // A naive value is read in the server's zone, UTC; Python prints it without an offset.
    naive = fields?.offsetMicros === null;
    offset = fields?.offsetMicros ?? 0;
  } else {
    fields = pythonFromIsoformat(text);
    offset = 0;
  }
  if (!fields) return undefined;
  const shift = fields.micro - offset;
  const msShift = Math.floor(shift / 1000);
  const wall = `${pad(fields.year, 4)}-${pad(fields.month, 2)}-${pad(fields.day, 2)}T${pad(fields.hour, 2)}:${pad(fields.minute, 2)}:${pad(fields.second, 2)}`;
  return {
    ms: wallMs(fields) + msShift,
    extraMicros: shift - msShift * 1000,
    isoformat: `${wall}${fields.micro ? `.${pad(fields.micro, 6)}` : ''}${naive ? '' : offsetText(offset)}`,
  };
}

/** One event's part in the rebuild: its `$set` and `$set_once` as JSON text (null when absent). */
export interface PropertyUpdateRow {
  event: string;
  set: string | null;
  setOnce: string | null;
}

function objectOf(json: string | null): Record<string, unknown> | undefined {
  if (!json) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * PostHog's `_reconstruct_properties`: each row's `$set` (an object) over what came before; with
 * `includeSetOnce`, a `$set_once` event's `$set_once` for the keys not there yet. Other events'
 * `$set_once` count for nothing, as in PostHog.
 */
export function rebuildProperties(rows: readonly PropertyUpdateRow[], includeSetOnce: boolean): Record<string, unknown> {
  // No prototype: a `__proto__` key is a property like any other, as in Python's dict.
  const properties = Object.create(null) as Record<string, unknown>;
  for (const row of rows) {
    const set = objectOf(row.set);
    if (set) Object.assign(properties, set);
    if (includeSetOnce && row.event === '$set_once') {
      const once = objectOf(row.setOnce);
      for (const key of Object.keys(once ?? {})) if (!Object.hasOwn(properties, key)) properties[key] = once![key];
    }
  }
  return properties;
}

/** Earliest and latest instants both databases' timestamps hold (years 1 to 9999). */
const FIRST_INSTANT = new Date(0).setUTCFullYear(1, 0, 1);
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The property updates of these distinct ids' events from two years before `at` up to it
 * (inclusive), oldest first (equal times by uuid), at most PROPERTY_ROW_LIMIT. Events are stored to
 * the millisecond: the bounds round inward to whole milliseconds. (PostHog's newest version binds
 * the moment itself through HogQL; its earlier ones cut both bounds to whole seconds.)
 */
export async function propertyUpdatesUntil(
  database: { db: Db; dialect: DialectName },
  teamId: number,
  distinctIds: readonly string[],
  at: PointInTime,
  includeSetOnce: boolean,
): Promise<PropertyUpdateRow[]> {
  const { db, dialect } = database;
  const upper = new Date(Math.min(Math.max(at.ms, FIRST_INSTANT), LAST_INSTANT)).toISOString();
  const lowerMs = at.ms - HISTORY_MS + (at.extraMicros > 0 ? 1 : 0);
  const lower = new Date(Math.min(Math.max(lowerMs, FIRST_INSTANT), LAST_INSTANT)).toISOString();
  const events = includeSetOnce ? ['$set', '$set_once'] : ['$set'];
  const rows: Array<PropertyUpdateRow & { timestamp: string; uuid: string }> = [];
  for (let i = 0; i < distinctIds.length; i += IDS_PER_QUERY) {
    const found = await db
      .selectFrom('events')
      .select(['event', 'timestamp', 'uuid', jsonValueText(dialect, 'properties', '$set').as('set'), jsonValueText(dialect, 'properties', '$set_once').as('setOnce')])
      .where('team_id', '=', teamId)
      .where('distinct_id', 'in', distinctIds.slice(i, i + IDS_PER_QUERY))
      .where('timestamp', '>=', lower)
      .where('timestamp', '<=', upper)
      .where((eb) => eb.or([eb('event', 'in', events), eb(jsonValueText(dialect, 'properties', '$set'), 'is not', null)]))
      .orderBy('timestamp')
      .orderBy('uuid')
      .limit(PROPERTY_ROW_LIMIT)
      .execute();
    for (const row of found) rows.push({ event: row.event, timestamp: String(row.timestamp), uuid: row.uuid, set: row.set, setOnce: row.setOnce });
  }
  // One query's rows are in order already; several are merged.
  if (distinctIds.length > IDS_PER_QUERY) rows.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  return rows.slice(0, PROPERTY_ROW_LIMIT);
}
