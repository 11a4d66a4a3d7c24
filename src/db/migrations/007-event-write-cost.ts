import type { HogletMigration } from './column-types.js';

/**
 * Cheaper event writes. `events_team_session_idx` (team, session id) served no query: the sessions
 * API reads the newest events with a session id through the (team, timestamp) index, and nothing
 * looks events up by session id. Yet every stored event paid for it, at a random place in the
 * index, which is one more page to write per event in every batch (a fifth of the SQLite cost of
 * an event row in the worker's profile).
 */
export const eventWriteCost: HogletMigration = {
  name: '007-event-write-cost',
  async up(db) {
    await db.schema.dropIndex('events_team_session_idx').ifExists().execute();
  },
};
