import type { HogletMigration } from './column-types.js';

/**
 * When a personal API key was last given a new value (PostHog's PersonalAPIKey.last_rolled_at,
 * set by the key management API's `roll/` action); null for a key never rolled.
 */
export const personalKeyRolls: HogletMigration = {
  name: '016-personal-key-rolls',
  async up(db, t) {
    await db.schema.alterTable('personal_api_keys').addColumn('last_rolled_at', t.timestamp).execute();
  },
};
