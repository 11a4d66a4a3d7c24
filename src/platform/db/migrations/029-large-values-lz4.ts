import { sql } from 'kysely';
import type { HogletMigration } from './column-types.js';

/**
 * PostgreSQL: the large values the ingestion path writes and reads on every batch (a queue row's
 * events, a batch's outbox text, a person's properties) are compressed out of line with lz4
 * instead of the default pglz, which took several times longer to compress the same text and so
 * weighed on the worker's batches (docs/benchmarks.md). Only the method of values written from now
 * on changes: rows written before keep pglz and read as before, so no row is rewritten.
 *
 * lz4 needs PostgreSQL 14 or later built with it (the usual packages are); without it the columns
 * keep pglz and nothing else differs. SQLite stores these values as they are: nothing to do.
 */
export const largeValuesLz4: HogletMigration = {
  name: '029-large-values-lz4',
  async up(db, t) {
    if (t.dialect !== 'postgres') return;
    // Inside PL/pgSQL each statement is parsed only when it runs: `set compression`, which an older
    // server would not parse, is never reached there.
    await sql`
      do $$
      begin
        if current_setting('server_version_num')::int >= 140000 then
          alter table ingestion_queue alter column payload set compression lz4;
          alter table analytics_outbox alter column events set compression lz4;
          alter table persons alter column properties set compression lz4;
        end if;
      exception when feature_not_supported then
        null;
      end
      $$`.execute(db);
  },
};
