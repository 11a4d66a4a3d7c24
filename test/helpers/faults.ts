import { sql, type Kysely } from 'kysely';
import { BACKEND } from './backend.js';

/** The message of the fault below, for matching errors and warnings. */
export const BOOM = /boom: person_distinct_ids refuses/;

/**
 * A real database fault, no mocking: a trigger in the test's own database refuses to insert a
 * distinct id ending in "-boom" into person_distinct_ids, so only person processing of such an id
 * fails (a personless event inserts no distinct id). On PostgreSQL the unqualified names land in
 * the test's schema (first on the search path) and are dropped with it.
 */
export async function refuseBoomDistinctIds(db: Kysely<any>): Promise<void> {
  const statements =
    BACKEND === 'sqlite'
      ? [
          `CREATE TRIGGER refuse_boom BEFORE INSERT ON person_distinct_ids WHEN NEW.distinct_id LIKE '%-boom'
           BEGIN SELECT RAISE(ABORT, 'boom: person_distinct_ids refuses this distinct id'); END`,
        ]
      : [
          `CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             IF NEW.distinct_id LIKE '%-boom' THEN
               RAISE EXCEPTION 'boom: person_distinct_ids refuses this distinct id';
             END IF;
             RETURN NEW;
           END $$`,
          `CREATE TRIGGER refuse_boom BEFORE INSERT ON person_distinct_ids FOR EACH ROW EXECUTE FUNCTION refuse_boom()`,
        ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/** The fault is mended. */
export async function acceptBoomDistinctIds(db: Kysely<any>): Promise<void> {
  const statements =
    BACKEND === 'sqlite'
      ? ['DROP TRIGGER refuse_boom']
      : ['DROP TRIGGER refuse_boom ON person_distinct_ids', 'DROP FUNCTION refuse_boom()'];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
