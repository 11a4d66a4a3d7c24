import { boolDefault, type HogletMigration } from './column-types.js';

/**
 * Surveys (issue 31): PostHog's Survey model. Questions, conditions and appearance are JSON as
 * PostHog keeps them; the targeting flags are rows of `feature_flags` named by id. A name is
 * unique within an environment (PostHog's "unique survey name for team" constraint).
 */
export const surveys: HogletMigration = {
  name: '023-surveys',
  async up(db, t) {
    await db.schema
      .createTable('surveys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', t.bigint, (c) => c.notNull())
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('schedule', 'text')
      .addColumn('linked_flag_id', t.bigint)
      .addColumn('targeting_flag_id', t.bigint)
      .addColumn('internal_targeting_flag_id', t.bigint)
      .addColumn('questions', t.json)
      .addColumn('conditions', t.json)
      .addColumn('appearance', t.json)
      .addColumn('start_date', t.timestamp)
      .addColumn('end_date', t.timestamp)
      .addColumn('archived', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('responses_limit', t.bigint)
      .addColumn('iteration_count', t.bigint)
      .addColumn('iteration_frequency_days', t.bigint)
      .addColumn('iteration_start_dates', t.json)
      .addColumn('current_iteration', t.bigint)
      .addColumn('current_iteration_start_date', t.timestamp)
      .addColumn('response_sampling_start_date', t.timestamp)
      .addColumn('response_sampling_interval_type', 'text')
      .addColumn('response_sampling_interval', t.bigint)
      .addColumn('response_sampling_limit', t.bigint)
      .addColumn('response_sampling_daily_limits', t.json)
      .addColumn('enable_partial_responses', t.bool)
      .addColumn('created_by_id', t.bigint)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('surveys_team_name_idx').on('surveys').columns(['team_id', 'name']).unique().execute();
    await db.schema.createIndex('surveys_project_created_idx').on('surveys').columns(['project_id', 'created_at']).execute();
  },
};
