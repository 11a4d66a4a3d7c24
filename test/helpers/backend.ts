import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The suite runs once per backend: with DATABASE_URL set (postgres://…) every test server gets a
 * fresh schema in that database; without it, a fresh SQLite file in a temporary folder.
 */
export const TEST_DATABASE_URL = process.env.DATABASE_URL?.trim() || undefined;
export const BACKEND: 'postgres' | 'sqlite' = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface TestStorage {
  /** Environment variables that point a Hoglet process at this storage. */
  env: Record<string, string>;
  dataDir: string;
  schema: string | undefined;
  dispose(): Promise<void>;
}

export async function freshStorage(): Promise<TestStorage> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-test-'));
  const schema = TEST_DATABASE_URL ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const env: Record<string, string> = { DATA_DIR: dataDir };
  if (TEST_DATABASE_URL && schema) Object.assign(env, { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema });
  return {
    env,
    dataDir,
    schema,
    async dispose() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (TEST_DATABASE_URL && schema) {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        } finally {
          await client.end();
        }
      }
    },
  };
}
