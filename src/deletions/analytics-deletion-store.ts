import type { Kysely } from 'kysely';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, fromClickHouseTime, join, raw, typed, type ChSql } from '../platform/analytics/sql.js';
import type { Database } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { insertSessionStates } from '../events/sessions-table.js';
import { overridesTo } from '../persons/overrides-store.js';
import { chunks } from '../lib/chunks.js';

/**
 * What deletions remove from ClickHouse (events, sessions, person overrides), and the SQL rows
 * that go with them (event uuids, person overrides). ClickHouse's DELETE is idempotent: a step
 * repeated after a crash deletes what is left, or nothing.
 */

type Db = Kysely<Schema>;
const ROWS_PER_STATEMENT = 500;
const UUIDS = 'Array(UUID)';
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Person uuids as ClickHouse compares them (a target that is no uuid names no event). */
function uuidsOf(values: Iterable<string>): string[] {
  return [...new Set([...values].map((value) => value.toLowerCase()).filter((value) => UUID_TEXT.test(value)))];
}

/** The ClickHouse tables holding an environment's data, each with a `team_id` column. */
const TEAM_TABLES = ['events', 'sessions', 'person_overrides'];

/** Deletes every ClickHouse row of the environment (lightweight deletes: one statement a table). */
export async function deleteTeamAnalytics(analytics: AnalyticsEngine, teamId: number): Promise<void> {
  for (const table of TEAM_TABLES) {
    const { sql, params } = ch`DELETE FROM ${raw(analytics.table(table))} WHERE team_id = ${teamId}`.compile();
    await analytics.command(sql, params);
  }
}

/** Whether a ClickHouse table still holds rows of the environment. */
export async function teamHasAnalyticsRows(analytics: AnalyticsEngine, teamId: number): Promise<boolean> {
  for (const table of TEAM_TABLES) {
    const { sql, params } = ch`SELECT 1 AS one FROM ${raw(analytics.table(table))} WHERE team_id = ${teamId} LIMIT 1`.compile();
    if ((await analytics.query(sql, params)).length > 0) return true;
  }
  return false;
}

/** Deleted persons: their uuids, and the distinct ids they had, each with the time it was deleted. */
export interface DeletedPersons {
  uuids: ReadonlySet<string>;
  distinctIds: ReadonlyMap<string, string>;
}

/**
 * The ClickHouse condition that picks the persons' events: processed with one of them, or with a
 * person merged into one of them (person_overrides); or sent by one of their distinct ids before
 * the deletion. That is what the events API showed as theirs (an event belongs to the person its
 * distinct id belongs to: events sent before a merge, personless ones, and those of an earlier
 * owner of the id deleted without its events). But not an event of a person that exists: the
 * id's owner since the deletion (its creation time can come before the deletion's: a batch that
 * began before it and read the id's person after it, or another machine's clock). The events of
 * the deleted persons' ids never name a living person: merged-away and deleted persons are gone;
 * a personless event names its id's uuidFromDistinctId, which a living person has only when a
 * split gave it that id, and then the id was not the deleted person's.
 */
export async function personEventsCondition(
  database: Database,
  analytics: AnalyticsEngine,
  teamId: number,
  persons: DeletedPersons,
): Promise<ChSql> {
  const personIds = uuidsOf([...persons.uuids, ...(await mergedInto(database.db, teamId, [...persons.uuids]))]);
  const processedWith = ch`person_id IN ${typed(UUIDS, personIds)}`;
  const ids = [...persons.distinctIds.keys()];
  if (ids.length === 0) return ch`team_id = ${teamId} AND ${processedWith}`;
  const deletedAt = ids.map((id) => Date.parse(persons.distinctIds.get(id)!));
  const sentBefore = ch`distinct_id IN ${typed('Array(String)', ids)}
    AND toUnixTimestamp64Milli(created_at) <= transform(distinct_id, ${typed('Array(String)', ids)}, ${typed('Array(Int64)', deletedAt)}, toInt64(0))`;
  const { sql, params } = ch`SELECT DISTINCT toString(person_id) AS person FROM ${raw(analytics.table('events'))}
    WHERE team_id = ${teamId} AND ${sentBefore} AND NOT ${processedWith}`.compile();
  const owners = (await analytics.query<{ person: string }>(sql, params)).map((row) => row.person);
  const living = uuidsOf(await existingPersons(database.db, teamId, owners));
  return ch`team_id = ${teamId} AND (${processedWith} OR (${sentBefore} AND person_id NOT IN ${typed(UUIDS, living)}))`;
}

/** The persons merged into these (they live on in them), as the SQL overrides record them. */
async function mergedInto(db: Db, teamId: number, uuids: string[]): Promise<string[]> {
  return (await overridesTo(db, teamId, uuids)).map((row) => row.old_person_id);
}

/** Which of these person uuids name a person of the team that exists. */
async function existingPersons(db: Db, teamId: number, uuids: readonly string[]): Promise<Set<string>> {
  const wanted = [...new Set(uuids)];
  const found = new Set<string>();
  for (const chunk of chunks(wanted, ROWS_PER_STATEMENT)) {
    const rows = await db.selectFrom('persons').select('uuid').where('team_id', '=', teamId).where('uuid', 'in', chunk).execute();
    for (const row of rows) found.add(row.uuid);
  }
  return found;
}

/** Where a deletion got: the last event it deleted, in (timestamp, uuid) order. */
export interface DeletedUpTo {
  timestamp: string;
  uuid: string;
}

/**
 * Deletes the oldest `limit` events the condition picks, with what hangs off them: their
 * sessions are rebuilt without them first, then their uuids leave the SQL dedupe, then the events
 * go. Each statement is idempotent, so a batch cut short by a crash is done again whole. Returns
 * how many it deleted and the last of them.
 */
export async function deleteEventsBatch(
  database: Database,
  analytics: AnalyticsEngine,
  teamId: number,
  condition: ChSql,
  limit: number,
): Promise<{ deleted: number; last: DeletedUpTo | null }> {
  const events = raw(analytics.table('events'));
  // Aliases other than the columns' names: ClickHouse's WHERE and ORDER BY would read an alias.
  const batch = ch`SELECT toString(uuid) AS event_uuid, session_id, timestamp FROM ${events} WHERE ${condition} ORDER BY timestamp, uuid LIMIT ${limit}`;
  const { sql, params } = batch.compile();
  const rows = await analytics.query<{ event_uuid: string; session_id: string; timestamp: string }>(sql, params);
  if (rows.length === 0) return { deleted: 0, last: null };
  const uuids = rows.map((row) => row.event_uuid);
  const sessionIds = [...new Set(rows.map((row) => row.session_id).filter((id) => id !== ''))];
  if (sessionIds.length > 0) await rebuildSessions(analytics, teamId, sessionIds, uuids);
  for (const chunk of chunks(uuids, ROWS_PER_STATEMENT)) {
    await database.db.deleteFrom('event_uuids').where('team_id', '=', teamId).where('uuid', 'in', chunk).execute();
  }
  const deletion = ch`DELETE FROM ${events} WHERE team_id = ${teamId} AND uuid IN ${typed(UUIDS, uuids)}`.compile();
  await analytics.command(deletion.sql, deletion.params);
  const last = rows[rows.length - 1]!;
  return { deleted: rows.length, last: { timestamp: fromClickHouseTime(last.timestamp), uuid: last.event_uuid } };
}

/** These sessions again, from their events but `without` (a session may hold other persons' events too). */
async function rebuildSessions(analytics: AnalyticsEngine, teamId: number, sessionIds: string[], without: string[]): Promise<void> {
  const sessions = raw(analytics.table('sessions'));
  const inSessions = ch`team_id = ${teamId} AND session_id IN ${typed('Array(String)', sessionIds)}`;
  const statements = [
    ch`DELETE FROM ${sessions} WHERE ${inSessions}`,
    insertSessionStates(analytics, join([inSessions, ch`uuid NOT IN ${typed(UUIDS, without)}`], ' AND ')),
  ];
  for (const statement of statements) {
    const { sql, params } = statement.compile();
    await analytics.command(sql, params);
  }
}

/** The person overrides of these persons (merged into them, or they into another), in ClickHouse and SQL. */
export async function deletePersonOverrides(
  database: Database,
  analytics: AnalyticsEngine,
  teamId: number,
  uuids: readonly string[],
): Promise<void> {
  const ids = uuidsOf(uuids);
  const { sql, params } = ch`DELETE FROM ${raw(analytics.table('person_overrides'))} WHERE team_id = ${teamId}
    AND (old_person_id IN ${typed(UUIDS, ids)} OR override_person_id IN ${typed(UUIDS, ids)})`.compile();
  await analytics.command(sql, params);
  for (const chunk of chunks(uuids, ROWS_PER_STATEMENT)) {
    await database.db
      .deleteFrom('person_overrides')
      .where('team_id', '=', teamId)
      .where((eb) => eb.or([eb('old_person_id', 'in', chunk), eb('override_person_id', 'in', chunk)]))
      .execute();
  }
}
