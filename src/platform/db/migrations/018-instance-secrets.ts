import { randomBytes } from 'node:crypto';
import type { HogletMigration } from './column-types.js';

/**
 * Secrets of this Hoglet installation, shared by all its processes: the key that signs the JWTs it
 * hands out (PostHog's JWT_SIGNING_KEY, its Django SECRET_KEY), such as an environment's
 * `live_events_token`. Made here, once, under the migration lock, so no two processes race to
 * mint it.
 */
export const instanceSecrets: HogletMigration = {
  name: '018-instance-secrets',
  async up(db, t) {
    await db.schema
      .createTable('instance_secrets')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db
      .insertInto('instance_secrets')
      .values({ name: 'jwt_signing_key', value: randomBytes(48).toString('base64url'), created_at: new Date().toISOString() })
      .execute();
  },
};
