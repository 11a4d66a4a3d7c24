import type { HogletMigration } from './column-types.js';
import { boolDefault } from './column-types.js';

export const tenancyAndKeys: HogletMigration = {
  name: '001-tenancy-and-keys',
  async up(db, t) {
    await db.schema
      .createTable('counters')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', t.bigint, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('organizations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('projects')
      .addColumn('id', t.bigint, (c) => c.primaryKey())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('teams')
      .addColumn('id', t.bigint, (c) => c.primaryKey())
      .addColumn('uuid', 'text', (c) => c.notNull().unique())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('project_id', t.bigint, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('api_token', 'text', (c) => c.notNull().unique())
      .addColumn('settings', t.json, (c) => c.notNull())
      .addColumn('ingested_event', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('teams_project_id_idx').on('teams').column('project_id').execute();

    await t
      .serialId(db.schema.createTable('users'))
      .addColumn('uuid', 'text', (c) => c.notNull().unique())
      .addColumn('distinct_id', 'text', (c) => c.notNull().unique())
      .addColumn('first_name', 'text', (c) => c.notNull())
      .addColumn('last_name', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('is_active', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, true)))
      .addColumn('is_staff', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('is_email_verified', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('current_organization_id', 'text')
      .addColumn('current_team_id', t.bigint)
      .addColumn('role_at_organization', 'text')
      .addColumn('date_joined', t.timestamp, (c) => c.notNull())
      .execute();

    await t
      .serialId(db.schema.createTable('organization_memberships'))
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('user_id', t.bigint, (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('joined_at', t.timestamp, (c) => c.notNull())
      .addUniqueConstraint('organization_memberships_org_user_key', ['organization_id', 'user_id'])
      .execute();

    await db.schema
      .createTable('personal_api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', t.bigint, (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('mask_value', 'text', (c) => c.notNull())
      .addColumn('secure_value', 'text', (c) => c.notNull().unique())
      .addColumn('scopes', t.json, (c) => c.notNull())
      .addColumn('scoped_teams', t.json)
      .addColumn('scoped_organizations', t.json)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_used_at', t.timestamp)
      .execute();
    await db.schema.createIndex('personal_api_keys_user_id_idx').on('personal_api_keys').column('user_id').execute();
  },
};
