import { createLogger, openAndMigrate } from '../app.js';
import { createPersonalApiKey } from '../auth/keys-service.js';
import { listKeysOfUser } from '../auth/keys-store.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { getUserByEmail, listProjects } from '../tenancy/store.js';

export async function withDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openAndMigrate(config, createLogger({ logLevel: 'warn' }));
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

export function parseIdList(text: string | undefined, option = '--projects'): number[] | undefined {
  if (!text) return undefined;
  const ids = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const id of ids) if (!/^\d+$/.test(id)) throw new Error(`${option} takes comma-separated ids, got "${id}"`);
  return ids.map(Number);
}

/**
 * The `--ids` of a retry command: undefined (retry everything) when the option is absent, else at
 * least one id. An empty list (say, an empty shell variable) must not widen into "all".
 */
export function parseRetryIds(text: string | undefined, what: string): number[] | undefined {
  const ids = parseIdList(text, '--ids');
  if (text !== undefined && (ids === undefined || ids.length === 0)) throw new Error(`--ids needs at least one ${what} id; leave it out to retry every parked one`);
  return ids;
}

async function findUser(database: Database, email: string | undefined) {
  const address = email ?? loadConfig().bootstrapEmail;
  const user = await getUserByEmail(database.db, address);
  if (!user) throw new Error(`no user with e-mail ${address}; start the server once to create the first user`);
  return user;
}

export async function runKeysCommand(
  sub: string | undefined,
  options: { scopes?: string | undefined; projects?: string | undefined; label?: string | undefined; email?: string | undefined },
): Promise<number> {
  if (sub === 'create') {
    if (!options.scopes) throw new Error('keys create needs --scopes (for example --scopes "*" or --scopes project:read)');
    const scopes = options.scopes.split(',').map((s) => s.trim()).filter(Boolean);
    const scopedTeams = parseIdList(options.projects);
    return withDatabase(async (database) => {
      const user = await findUser(database, options.email);
      const { key, rawValue } = await createPersonalApiKey(database, {
        userId: user.id,
        label: options.label ?? 'CLI key',
        scopes,
        ...(scopedTeams ? { scopedTeams } : {}),
      });
      process.stdout.write(
        `Personal API key "${key.label}" for ${user.email} (shown only this once):\n${rawValue}\n` +
          `scopes: ${key.scopes.join(', ')}${key.scopedTeams ? `; projects: ${key.scopedTeams.join(', ')}` : ''}\n`,
      );
      return 0;
    });
  }
  if (sub === 'list') {
    return withDatabase(async (database) => {
      const user = await findUser(database, options.email);
      for (const key of await listKeysOfUser(database.db, user.id)) {
        const projects = key.scopedTeams ? ` projects=${key.scopedTeams.join(',')}` : '';
        process.stdout.write(`${key.maskValue}  ${key.label}  scopes=${key.scopes.join(',')}${projects}  created=${key.createdAt}\n`);
      }
      return 0;
    });
  }
  throw new Error('usage: hoglet keys create --scopes S [--projects IDS] [--label L] | hoglet keys list');
}

export async function runProjectsCommand(sub: string | undefined): Promise<number> {
  if (sub !== 'list' && sub !== undefined) throw new Error('usage: hoglet projects list');
  return withDatabase(async (database) => {
    for (const project of await listProjects(database.db)) {
      process.stdout.write(`${project.id}  ${project.name}  ${project.apiToken}\n`);
    }
    return 0;
  });
}
