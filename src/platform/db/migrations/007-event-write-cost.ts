import type { HogletMigration } from './column-types.js';

/**
 * Cheaper event writes: two indexes of `events` that every stored event paid for at a random place
 * in the index, i.e. about one more page written per event and batch once the table is large
 * (with 16 KiB pages, 16 KiB of WAL per event, several times the event row itself). In the
 * worker's profile they were the largest part of the SQLite cost of an event.
 * - `events_team_session_idx` (team, session id) served no query: the sessions API reads the
 *   newest events that have a session id through the (team, timestamp) index, and nothing looks
 *   events up by session id.
 * - `events_team_distinct_id_idx` (team, distinct id, timestamp) only served the events list's
 *   `distinct_id` filter. That list now walks the (team, timestamp) index newest first and stops
 *   at a page of matches, as it already did for `person_id` and property filters (and as PostHog's
 *   events table, ordered by team, date and event, does): quick for ids that are active, a longer
 *   scan for one whose last events are old, bounded by `after`/`before`.
 */
export const eventWriteCost: HogletMigration = {
  name: '007-event-write-cost',
  async up(db) {
    await db.schema.dropIndex('events_team_session_idx').ifExists().execute();
    await db.schema.dropIndex('events_team_distinct_id_idx').ifExists().execute();
  },
};
