/**
 * The one-shot commands (keys, projects, queue, deletions) work on the database a server created:
 * pointed at a place that holds none, they say so and create nothing; otherwise they name the
 * database they opened on stderr, leaving stdout to their answer.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openAndMigrate } from '../../src/platform/db/open-and-migrate.js';
import { loadConfig } from '../../src/config.js';
import { BACKEND, freshStorage, TEST_DATABASE_URL, type TestStorage } from '../helpers/backend.js';
import { REPO_ROOT } from '../helpers/process.js';

const exec = promisify(execFile);
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function storage(): Promise<TestStorage> {
  const s = await freshStorage();
  cleanups.push(() => s.dispose());
  return s;
}

/** The real CLI in a child process, stdout and stderr apart. */
async function hoglet(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function schemaExists(schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_namespace where nspname = $1', [schema])).rowCount === 1;
  } finally {
    await client.end();
  }
}

const COMMANDS = [
  ['keys', 'list'],
  ['queue', 'status'],
  ['deletions', 'list'],
];

describe('the one-shot commands and their database', () => {
  it('refuse a place that holds no database, and create none there', async () => {
    const s = await storage();
    const expected = BACKEND === 'sqlite' ? path.join(s.dataDir, 'data', 'hoglet.db') : `(schema ${s.schema})`;
    // DATA_DIR pointing at a folder not made yet: the default ./data of a fresh folder is such a place.
    const env = { ...s.env, DATA_DIR: path.join(s.dataDir, 'data') };
    for (const args of COMMANDS) {
      const run = await hoglet(args, env);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr).toContain('hoglet: no Hoglet database at ');
      expect(run.stderr).toContain(expected);
    }
    expect(fs.existsSync(path.join(s.dataDir, 'data'))).toBe(false);
    if (BACKEND === 'postgres') expect(await schemaExists(s.schema!)).toBe(false);
  }, 120_000);

  it("refuse an SQLite file that is not Hoglet's, and leave it as it was", async () => {
    if (BACKEND !== 'sqlite') return;
    const s = await storage();
    const file = path.join(s.dataDir, 'hoglet.db');
    fs.writeFileSync(file, '');
    const run = await hoglet(['projects', 'list'], s.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`hoglet: no Hoglet database at ${file}; set DATA_DIR`);
    expect(fs.readdirSync(s.dataDir)).toEqual(['hoglet.db']);
    expect(fs.statSync(file).size).toBe(0);
  });

  it('name the database they opened on stderr, with the answer alone on stdout', async () => {
    const s = await storage();
    const database = await openAndMigrate(loadConfig(s.env), pino({ level: 'silent' }));
    const location = database.location;
    await database.close();
    expect(location).toContain(BACKEND === 'sqlite' ? s.dataDir : `(schema ${s.schema})`);
    // No password in it.
    if (TEST_DATABASE_URL && new URL(TEST_DATABASE_URL).password) expect(location).not.toContain(new URL(TEST_DATABASE_URL).password);

    const queue = await hoglet(['queue', 'status'], s.env);
    expect(queue).toEqual({ code: 0, stdout: 'the ingestion queue is empty\n', stderr: `database: ${location}\n` });
    const deletions = await hoglet(['deletions', 'list'], s.env);
    expect(deletions).toEqual({ code: 0, stdout: 'no background deletions pending\n', stderr: `database: ${location}\n` });
    // Quieter than info: the answer alone.
    expect(await hoglet(['queue', 'status'], { ...s.env, LOG_LEVEL: 'warn' })).toEqual({
      code: 0,
      stdout: 'the ingestion queue is empty\n',
      stderr: '',
    });
  }, 120_000);
});
