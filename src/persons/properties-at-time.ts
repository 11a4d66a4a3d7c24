/**
 * A person's properties as they stood at a moment (PostHog's PersonViewSet `properties_at_time`,
 * posthog/models/person/point_in_time_properties.py): rebuilt from the `$set` the events of the
 * person's distinct ids carried up to then (and, when asked, the `$set_once` of `$set_once`
 * events), oldest first, over the two years before the moment, at most 100,000 updates.
 */
import type { Kysely } from 'kysely';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import type { Schema } from '../platform/db/schema.js';
import { queryParam } from '../posthog/python-values.js';
import { canonicalUuid } from '../lib/uuid.js';
import type { Team } from '../environments/models.js';
import { serializePerson } from './serialize.js';
import { distinctIdsOf, getPersonByDistinctId, getPersonByUuid } from './store.js';
import { propertyUpdatesUntil, type PropertyUpdateRow } from './properties-at-time-store.js';
import { fieldsIsoformat, instantOf, pythonFromIsoformat, type PythonDateTimeFields } from '../posthog/drf-datetime.js';

type Db = Kysely<Schema>;

/** The moment asked for: the instant (ms, and the microseconds past it) and Python's isoformat of it. */
export interface PointInTime {
  ms: number;
  extraMicros: number;
  isoformat: string;
}

/**
 * The `timestamp` parameter as the action reads it: ending in `Z`, the rest is read as UTC
 * (`fromisoformat(ts[:-1]).replace(tzinfo=UTC)`); with a `+` or more than two `-`, as written
 * (its own offset); else as UTC. Undefined where Python's `fromisoformat` refuses it.
 */
export function readPointInTime(text: string): PointInTime | undefined {
  let fields: PythonDateTimeFields | null;
  // The offset the moment is read at; null: naive after all (a `+` that is the date-time separator),
  // read in the server's zone, UTC, and printed by Python without an offset.
  let offset: number | null;
  if (text.endsWith('Z')) {
    fields = pythonFromIsoformat(text.slice(0, -1));
    offset = 0;
  } else if (text.includes('+') || text.split('-').length - 1 > 2) {
    fields = pythonFromIsoformat(text);
    offset = fields?.offsetMicros ?? null;
  } else {
    fields = pythonFromIsoformat(text);
    offset = 0;
  }
  if (!fields) return undefined;
  const instant = instantOf(fields, offset ?? 0);
  return { ms: instant.date.getTime(), extraMicros: instant.extraMicros, isoformat: fieldsIsoformat(fields, offset) };
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

/** The action's answer: the person at the moment, or PostHog's refusal (its `{error}` text). */
export type PropertiesAtTimeAnswer =
  | { status: 200; body: ReturnType<typeof serializePerson> & { point_in_time_metadata: Record<string, unknown> } }
  | { status: 400 | 404; error: string };

/**
 * The whole action on the request's query: the person (by `distinct_id`, or by `person_id`, a uuid)
 * with the properties its events had set by `timestamp`, and what was asked; refusals in PostHog's
 * order and words.
 */
export async function propertiesAtTime(
  stores: { database: { db: Db }; analytics: AnalyticsEngine },
  team: Team,
  query: unknown,
): Promise<PropertiesAtTimeAnswer> {
  const { db } = stores.database;
  // Python's truthiness: an empty parameter is no parameter.
  const distinctId = queryParam(query, 'distinct_id') || undefined;
  const personId = queryParam(query, 'person_id') || undefined;
  const timestampText = queryParam(query, 'timestamp') || undefined;
  const includeSetOnce = (queryParam(query, 'include_set_once') ?? 'false').toLowerCase() === 'true';
  if (distinctId && personId) return { status: 400, error: 'Cannot provide both distinct_id and person_id - choose one' };
  if (!distinctId && !personId) return { status: 400, error: 'Must provide either distinct_id or person_id parameter' };
  if (!timestampText) return { status: 400, error: 'timestamp parameter is required (ISO format: 2023-06-15T14:30:00Z)' };
  const at = readPointInTime(timestampText);
  if (!at) return { status: 400, error: 'Invalid timestamp format. Use ISO format like 2023-06-15T14:30:00Z' };
  const uuid = personId === undefined ? null : canonicalUuid(personId);
  const person =
    distinctId !== undefined
      ? await getPersonByDistinctId(db, team.id, distinctId)
      : uuid
        ? await getPersonByUuid(db, team.id, uuid)
        : undefined;
  const distinctIds = person ? ((await distinctIdsOf(db, [person.id])).get(person.id) ?? []) : [];
  if (!person || distinctIds.length === 0) {
    return {
      status: 404,
      error:
        distinctId !== undefined ? `Person with distinct_id '${distinctId}' not found` : `Person with person_id '${personId}' not found`,
    };
  }
  const updates = await propertyUpdatesUntil(stores.analytics, team.id, distinctIds, at, includeSetOnce);
  return {
    status: 200,
    body: {
      ...serializePerson(team, person, distinctIds),
      properties: rebuildProperties(updates, includeSetOnce),
      point_in_time_metadata: {
        queried_timestamp: at.isoformat,
        include_set_once: includeSetOnce,
        distinct_id_used: distinctId ?? null,
        person_id_used: personId ?? null,
        query_mode: distinctId !== undefined ? 'distinct_id' : 'person_id',
        distinct_ids_queried: distinctIds,
        distinct_ids_count: distinctIds.length,
      },
    },
  };
}
