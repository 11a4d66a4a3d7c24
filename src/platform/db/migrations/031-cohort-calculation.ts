import { boolDefault, type HogletMigration } from './column-types.js';

/**
 * A dynamic cohort's calculation (src/cohorts/calculator.ts), as PostHog's cohort fields:
 * `is_calculating` (asked for or running), `errors_calculating` and `last_error_at` (failures in a
 * row, the latest). Hoglet's own: `calculation_requests` (bumped by every change that asks for a
 * calculation, so one that started before it is not taken as current), `calculation_retry_at`
 * (the end of a failed cohort's backoff), and the claim of the process calculating it now
 * (`calculation_owner` until `calculation_lease_until`; a lapsed claim is anyone's).
 */
export const cohortCalculation: HogletMigration = {
  name: '031-cohort-calculation',
  async up(db, t) {
    // One column per statement: SQLite adds a single column per ALTER TABLE.
    const cohorts = () => db.schema.alterTable('cohorts');
    await cohorts()
      .addColumn('is_calculating', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .execute();
    await cohorts()
      .addColumn('errors_calculating', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await cohorts().addColumn('last_error_at', t.timestamp).execute();
    await cohorts()
      .addColumn('calculation_requests', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await cohorts().addColumn('calculation_retry_at', t.timestamp).execute();
    await cohorts().addColumn('calculation_owner', 'text').execute();
    await cohorts().addColumn('calculation_lease_until', t.timestamp).execute();
  },
};
