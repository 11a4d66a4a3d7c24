/**
 * The reads of `properties_at_time` (persons/properties-at-time.ts): the property updates the
 * events of a person's distinct ids carried, as PostHog's point_in_time_properties.py selects them.
 */
import type { Kysely } from 'kysely';
import type { DialectName } from '../platform/db/database.js';
import { jsonValueText } from '../platform/db/json-path.js';
import type { Schema } from '../platform/db/schema.js';
import { storedInstantText } from '../platform/db/values.js';
import type { PointInTime } from './properties-at-time.js';

type Db = Kysely<Schema>;

/** PostHog's DEFAULT_PROPERTY_ROW_LIMIT. */
export const PROPERTY_ROW_LIMIT = 100_000;
/** PostHog's _HISTORY_SCAN_FLOOR: 365 × 2 days before the moment. */
const HISTORY_MS = 730 * 24 * 3600 * 1000;
/** Distinct ids per query (a person merged from many visits can have tens of thousands). */
const IDS_PER_QUERY = 1000;

/** One event's part in the rebuild: its `$set` and `$set_once` as JSON text (null when absent). */
export interface PropertyUpdateRow {
  event: string;
  set: string | null;
  setOnce: string | null;
}

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
  const upper = storedInstantText(at.ms);
  const lower = storedInstantText(at.ms - HISTORY_MS + (at.extraMicros > 0 ? 1 : 0));
  const events = includeSetOnce ? ['$set', '$set_once'] : ['$set'];
  const rows: Array<PropertyUpdateRow & { timestamp: string; uuid: string }> = [];
  for (let i = 0; i < distinctIds.length; i += IDS_PER_QUERY) {
    const found = await db
      .selectFrom('events')
      .select([
        'event',
        'timestamp',
        'uuid',
        jsonValueText(dialect, 'properties', '$set').as('set'),
        jsonValueText(dialect, 'properties', '$set_once').as('setOnce'),
      ])
      .where('team_id', '=', teamId)
      .where('distinct_id', 'in', distinctIds.slice(i, i + IDS_PER_QUERY))
      .where('timestamp', '>=', lower)
      .where('timestamp', '<=', upper)
      .where((eb) => eb.or([eb('event', 'in', events), eb(jsonValueText(dialect, 'properties', '$set'), 'is not', null)]))
      .orderBy('timestamp')
      .orderBy('uuid')
      .limit(PROPERTY_ROW_LIMIT)
      .execute();
    for (const row of found)
      rows.push({ event: row.event, timestamp: String(row.timestamp), uuid: row.uuid, set: row.set, setOnce: row.setOnce });
  }
  // One query's rows are in order already; several are merged.
  if (distinctIds.length > IDS_PER_QUERY)
    rows.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  return rows.slice(0, PROPERTY_ROW_LIMIT);
}
