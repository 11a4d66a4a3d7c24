import type { HogletMigration } from './column-types.js';

/**
 * An environment's project secret API key (`phs_…`, PostHog's Team.secret_api_token) and the one
 * it replaced, which keeps working until it is deleted (secret_api_token_backup). Both start null:
 * PostHog mints the first key on the first rotation. They are stored as PostHog stores them, in
 * plain text, because the environment API shows them on every read. Each is unique and indexed:
 * the local-evaluation feed looks an environment up by either one.
 */
export const teamSecretApiTokens: HogletMigration = {
  name: '012-team-secret-api-tokens',
  async up(db) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    await db.schema.alterTable('teams').addColumn('secret_api_token', 'text').execute();
    await db.schema.alterTable('teams').addColumn('secret_api_token_backup', 'text').execute();
    await db.schema.createIndex('teams_secret_api_token_key').unique().on('teams').column('secret_api_token').execute();
    await db.schema.createIndex('teams_secret_api_token_backup_key').unique().on('teams').column('secret_api_token_backup').execute();
  },
};
