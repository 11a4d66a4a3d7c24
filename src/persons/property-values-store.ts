/**
 * `persons/values/?key=&value=` (PersonViewSet.values, posthog/models/person/util.py's
 * get_person_property_values_for_key): the most common values of one person property, for the
 * filter pickers of PostHog's UI.
 */
import { sql } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { jsonText, jsonValueText } from '../platform/db/json-path.js';
import { ilike, literalContainsPattern } from '../posthog/property-conditions.js';
import { inByteOrder } from '../platform/db/text-functions.js';
import { pythonJsonDumps } from '../posthog/python-json.js';
import { pythonRepr } from '../posthog/python-text.js';

export interface PropertyValueCount {
  name: string;
  count: number;
}

/** PostHog reads the newest 100,000 matching persons (`ORDER BY id DESC LIMIT 100000`). */
export const SCANNED_PERSONS = 100_000;
/** And answers the 20 most common values. */
export const MAX_VALUES = 20;

/**
 * PostHog's escaped "contains `value`" for `ilike`. Only ASCII letters are lowered: `ilike` lowers
 * the column with SQLite's lower(), which folds ASCII only, so a lowered non-ASCII letter would
 * miss the very text it was typed from.
 */
function valueSearchPattern(value: string): string {
  return literalContainsPattern(value).replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * A value's name as PostHog's `convert_property_value(json.loads(value))` prints it: strings as
 * they are, booleans `true`/`false`, numbers as Python prints them, objects and arrays as
 * `json.dumps(sort_keys=True)`. `raw` is one stored value of the group (its JSON text); `text`
 * the group's text, used as is should the JSON not parse.
 */
export function valueName(text: string, raw: string | null): string {
  let parsed: unknown;
  try {
    parsed = raw === null ? text : JSON.parse(raw);
  } catch {
    return text;
  }
  if (typeof parsed === 'string') return parsed;
  if (typeof parsed === 'boolean') return parsed ? 'true' : 'false';
  if (typeof parsed === 'number') return pythonRepr(parsed);
  if (parsed !== null && typeof parsed === 'object') return pythonJsonDumps(parsed);
  return text;
}

/**
 * `distinct_id` is no property: PostHog answers it from the distinct-id table, each id once
 * (count 1), in ascending order.
 */
async function distinctIdValues(database: Database, teamId: number, value: string | undefined): Promise<PropertyValueCount[]> {
  const { db, dialect } = database;
  let query = db.selectFrom('person_distinct_ids as d').select('d.distinct_id').where('d.team_id', '=', teamId);
  if (value) query = query.where(ilike(dialect, sql.ref('d.distinct_id'), valueSearchPattern(value)));
  const rows = await query
    .orderBy(inByteOrder(dialect, sql.ref('d.distinct_id')))
    .limit(MAX_VALUES)
    .execute();
  return rows.map((r) => ({ name: r.distinct_id, count: 1 }));
}

/**
 * The most common values of person property `key` among the team's newest 100,000 persons that
 * have one (not null, not empty text; containing `value` case-insensitively when given), grouped
 * by their text as PostHog groups them (the string "5" and the number 5 are one value), most
 * common first, ties in byte order of the text.
 */
export async function personPropertyValues(
  database: Database,
  teamId: number,
  key: string | undefined,
  value: string | undefined,
): Promise<PropertyValueCount[]> {
  // PostHog answers no key, and its virtual (computed) properties, with nothing.
  if (!key || key.startsWith('$virt')) return [];
  if (key === 'distinct_id') return distinctIdValues(database, teamId, value);

  const { db, dialect } = database;
  const text = jsonText(dialect, 'p.properties', key);
  let scanned = db
    .selectFrom('persons as p')
    .select([text.as('value'), jsonValueText(dialect, 'p.properties', key).as('raw')])
    .where('p.team_id', '=', teamId)
    .where(sql<boolean>`${text} is not null and ${text} <> ''`);
  if (value) scanned = scanned.where(ilike(dialect, text, valueSearchPattern(value)));
  // The bound applies to the persons that have a value, newest first, as in PostHog's query.
  const newest = scanned.orderBy('p.id', 'desc').limit(SCANNED_PERSONS).as('v');

  const rows = await db
    .selectFrom(newest)
    .select((eb) => ['v.value', eb.fn.countAll<number | string>().as('n'), eb.fn.min('v.raw').as('raw')])
    .groupBy('v.value')
    .orderBy('n', 'desc')
    .orderBy(inByteOrder(dialect, sql.ref('v.value')))
    .limit(MAX_VALUES)
    .execute();
  return rows.map((r) => ({ name: valueName(r.value ?? '', r.raw ?? null), count: Number(r.n) }));
}
