import type { Database } from '../platform/db/database.js';
import { containsText, utcDay } from '../platform/db/text-functions.js';

/** Which warnings a summary covers: the environment's since a time, optionally matching a text. */
export interface WarningScope {
  teamId: number;
  since: string;
  /** PostHog's `positionUTF8(details, q) > 0 OR positionUTF8(type, q) > 0`. */
  search?: string;
}

function scoped(database: Database, scope: WarningScope) {
  const { db, dialect } = database;
  let query = db.selectFrom('ingestion_warnings').where('team_id', '=', scope.teamId).where('timestamp', '>=', scope.since);
  // An empty search is a substring of everything there too.
  if (scope.search)
    query = query.where((eb) => eb.or([containsText(dialect, 'details', scope.search!), containsText(dialect, 'type', scope.search!)]));
  return query;
}

/** How many warnings of each type there were on each UTC day. */
export async function warningDayCounts(
  database: Database,
  scope: WarningScope,
): Promise<{ type: string; day: string; n: number | string | bigint }[]> {
  const { dialect } = database;
  return scoped(database, scope)
    .select(['type', utcDay(dialect, 'timestamp').as('day'), (eb) => eb.fn.countAll().as('n')])
    .groupBy(['type', utcDay(dialect, 'timestamp')])
    .execute();
}

/** The newest `perType` warnings of each type, by type, newest first. */
export async function warningExamples(
  database: Database,
  scope: WarningScope,
  perType: number,
): Promise<{ type: string; details: unknown; timestamp: string }[]> {
  const ranked = scoped(database, scope).select([
    'type',
    'details',
    'timestamp',
    (eb) =>
      eb.fn
        .agg<number>('row_number')
        .over((ob) => ob.partitionBy('type').orderBy('timestamp', 'desc').orderBy('id', 'desc'))
        .as('rank'),
  ]);
  return database.db
    .selectFrom(ranked.as('ranked'))
    .select(['type', 'details', 'timestamp'])
    .where('rank', '<=', perType)
    .orderBy('type')
    .orderBy('rank')
    .execute();
}
