import { randomUUID } from 'node:crypto';
import type { HogletMigration } from './column-types.js';

/**
 * Accounts (issue 29): a password per user (a self-describing scrypt string, src/auth/passwords.ts),
 * browser sessions and one-time password tokens stored as hashes only, the failed-login counters
 * that throttle guessing across every process, organization invites, and the fields PostHog's
 * member list shows (a membership uuid, when it last changed, the user's last login).
 */
export const accounts: HogletMigration = {
  name: '020-accounts',
  async up(db, t) {
    await db.schema.alterTable('users').addColumn('password', 'text').execute();
    await db.schema.alterTable('users').addColumn('last_login', t.timestamp).execute();

    await db.schema.alterTable('organization_memberships').addColumn('uuid', 'text').execute();
    await db.schema.alterTable('organization_memberships').addColumn('updated_at', t.timestamp).execute();
    const memberships = await db.selectFrom('organization_memberships').select(['id', 'joined_at']).execute();
    for (const m of memberships) {
      await db
        .updateTable('organization_memberships')
        .set({ uuid: randomUUID(), updated_at: m.joined_at })
        .where('id', '=', m.id)
        .execute();
    }
    await db.schema.createIndex('organization_memberships_uuid_idx').on('organization_memberships').column('uuid').unique().execute();

    await db.schema
      .createTable('user_sessions')
      // sha256 of the cookie's value: a copy of the table lets no one in.
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', t.bigint, (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
      .addColumn('expires_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('user_sessions_user_idx').on('user_sessions').column('user_id').execute();
    await db.schema.createIndex('user_sessions_expires_idx').on('user_sessions').column('expires_at').execute();

    await db.schema
      .createTable('password_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', t.bigint, (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('expires_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('password_tokens_user_idx').on('password_tokens').column('user_id').execute();

    await db.schema
      .createTable('login_failures')
      // `email:<address>` or `ip:<address>`; one row per key and window.
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('failures', t.bigint, (c) => c.notNull())
      .addColumn('window_started_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('login_failures_window_idx').on('login_failures').column('window_started_at').execute();

    await db.schema
      .createTable('organization_invites')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('target_email', 'text', (c) => c.notNull())
      .addColumn('first_name', 'text', (c) => c.notNull())
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('message', 'text')
      .addColumn('emailing_attempt_made', t.bool, (c) => c.notNull())
      .addColumn('created_by_id', t.bigint, (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('organization_invites_org_idx')
      .on('organization_invites')
      .columns(['organization_id', 'created_at'])
      .execute();
  },
};
