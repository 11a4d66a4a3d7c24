import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Whether the database (or a transaction, or a session of it) is PostgreSQL: for code handed a
 * Kysely instance rather than the Database with its `dialect`.
 */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
