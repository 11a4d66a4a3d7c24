import type { Database } from '../platform/db/database.js';
import { jsonText } from '../platform/db/json-path.js';
import { forEachEventPage, propertyColumns, readPropertyColumns } from '../events/event-pages.js';

/** A web vitals event with only the properties asked for. */
export interface WebVitalsRow {
  timestamp: string;
  properties: Record<string, unknown>;
}

/**
 * The environment's `event` events since `since`, a page at a time, through the (team, event,
 * timestamp) index, each with only `propertyKeys`. With `pathname`, only the events of that path
 * or with no `$pathname` at all are read.
 */
export async function forEachWebVitalsPage(
  database: Database,
  query: { teamId: number; event: string; since: string; pathname?: string; propertyKeys: readonly string[] },
  onPage: (rows: WebVitalsRow[]) => void,
): Promise<void> {
  const { dialect } = database;
  const pathname = jsonText(dialect, 'properties', '$pathname');
  const select = () =>
    database.db
      .selectFrom('events')
      .select('timestamp')
      .select(propertyColumns(dialect, query.propertyKeys))
      .where('team_id', '=', query.teamId)
      .where('event', '=', query.event)
      .where('timestamp', '>=', query.since)
      .$if(query.pathname !== undefined, (q) => q.where((eb) => eb.or([eb(pathname, '=', query.pathname!), eb(pathname, 'is', null)])));
  await forEachEventPage<Record<string, unknown>>(database, select, { pageSize: 10_000 }, (rows) =>
    onPage(rows.map((row) => ({ timestamp: row.timestamp as string, properties: readPropertyColumns(row, query.propertyKeys) }))),
  );
}
