import type { HogletMigration } from './column-types.js';
import { boolDefault } from './column-types.js';

/** Feature flags, cohorts (with static members) and experience-continuity hash-key overrides. */
export const flags: HogletMigration = {
  name: '003-flags',
  async up(db, t) {
    // Flags belong to a project (PostHog: `team__project_id`); team_id records the environment
    // the flag was created from.
    await t
      .serialId(db.schema.createTable('feature_flags'))
      .addColumn('project_id', t.bigint, (c) => c.notNull())
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('filters', t.json, (c) => c.notNull())
      .addColumn('active', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, true)))
      .addColumn('deleted', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('ensure_experience_continuity', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('is_remote_configuration', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('has_encrypted_payloads', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('evaluation_runtime', 'text', (c) => c.notNull().defaultTo('all'))
      .addColumn('bucketing_identifier', 'text')
      .addColumn('tags', t.json, (c) => c.notNull())
      .addColumn('created_by_id', t.bigint)
      .addColumn('last_modified_by_id', t.bigint)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('feature_flags_project_key_idx').on('feature_flags').columns(['project_id', 'key']).execute();

    await t
      .serialId(db.schema.createTable('cohorts'))
      .addColumn('project_id', t.bigint, (c) => c.notNull())
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('filters', t.json)
      .addColumn('is_static', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('deleted', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('count', 'integer')
      .addColumn('version', 'integer')
      .addColumn('created_by_id', t.bigint)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_calculation', t.timestamp)
      .execute();
    await db.schema.createIndex('cohorts_project_idx').on('cohorts').columns(['project_id', 'id']).execute();

    // Static cohort members, by person (as PostHog's cohortpeople): merges keep membership.
    await db.schema
      .createTable('cohort_people')
      .addColumn('cohort_id', t.bigint, (c) => c.notNull().references('cohorts.id').onDelete('cascade'))
      .addColumn('person_id', t.bigint, (c) => c.notNull())
      .addPrimaryKeyConstraint('cohort_people_pkey', ['cohort_id', 'person_id'])
      .execute();
    await db.schema.createIndex('cohort_people_person_idx').on('cohort_people').column('person_id').execute();

    // ensure_experience_continuity: the anonymous id a person's flags keep hashing on.
    await db.schema
      .createTable('flag_hash_key_overrides')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('person_id', t.bigint, (c) => c.notNull())
      .addColumn('feature_flag_key', 'text', (c) => c.notNull())
      .addColumn('hash_key', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('flag_hash_key_overrides_pkey', ['team_id', 'person_id', 'feature_flag_key'])
      .execute();
  },
};
