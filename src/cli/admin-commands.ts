import { createLogger } from '../platform/logger.js';
import { openAndMigrate } from '../platform/db/open-and-migrate.js';
import { createPersonalApiKey, listPersonalApiKeys, revokePersonalApiKey } from '../auth/keys-service.js';
import { loadConfig } from '../config.js';
import { DatabaseMissingError, type Database } from '../platform/db/database.js';
import { ApiError } from '../posthog/errors.js';
import { getUserByEmail, listProjects } from '../environments/tenancy-store.js';

/**
 * Runs a one-shot command on the database the server uses. It must exist already: a command run
 * where no server ever started (another folder, DATA_DIR unset) would otherwise create an empty
 * one and answer from it as if nothing were there. Which one was opened goes to stderr (stdout is
 * the command's answer, for scripts), unless LOG_LEVEL is above info.
 */
export async function withDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  let database: Database;
  try {
    database = await openAndMigrate(config, createLogger({ logLevel: 'warn' }), { existing: true });
  } catch (error) {
    if (!(error instanceof DatabaseMissingError)) throw error;
    const hint =
      error.dialect === 'sqlite'
        ? `${process.env.DATA_DIR?.trim() ? '' : ' (DATA_DIR is unset: ./data)'}; set DATA_DIR to the folder of the server's hoglet.db, or DATABASE_URL for PostgreSQL`
        : '; set DATABASE_URL (and DATABASE_SCHEMA) to where the server keeps its tables';
    throw new Error(`${error.message}${hint} (the server creates its database when it first starts)`, { cause: error });
  }
  if (createLogger(config).isLevelEnabled('info')) process.stderr.write(`database: ${database.location}\n`);
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

export function parseIdList(text: string | undefined, option = '--projects'): number[] | undefined {
  if (!text) return undefined;
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids) if (!/^\d+$/.test(id)) throw new Error(`${option} takes comma-separated ids, got "${id}"`);
  return ids.map(Number);
}

/**
 * The `--ids` of a retry command: undefined (retry everything) when the option is absent, else at
 * least one id. An empty list (say, an empty shell variable) must not widen into "all".
 */
export function parseRetryIds(text: string | undefined, what: string): number[] | undefined {
  const ids = parseIdList(text, '--ids');
  if (text !== undefined && (ids === undefined || ids.length === 0))
    throw new Error(`--ids needs at least one ${what} id; leave it out to retry every parked one`);
  return ids;
}

async function findUser(database: Database, email: string | undefined) {
  const address = email ?? loadConfig().bootstrapEmail;
  const user = await getUserByEmail(database.db, address);
  if (!user) throw new Error(`no user with e-mail ${address}; start the server once to create the first user`);
  return user;
}

/** The command-line option a key field comes from, to name it in an error. */
const KEY_OPTIONS: Record<string, string> = { label: '--label', scopes: '--scopes', scoped_teams: '--projects' };

/** A refused key field as the CLI reads it: the option, then PostHog's message. */
function keyInputError(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.attr === null) return error;
  const option = KEY_OPTIONS[error.attr.split('__')[0]!];
  return option ? new Error(`${option}: ${error.detail}`) : error;
}

export async function runKeysCommand(
  sub: string | undefined,
  options: {
    scopes?: string | undefined;
    projects?: string | undefined;
    label?: string | undefined;
    email?: string | undefined;
    id?: string | undefined;
  },
): Promise<number> {
  if (sub === 'create') {
    if (!options.scopes) throw new Error('keys create needs --scopes (for example --scopes "*" or --scopes project:read)');
    const scopes = options.scopes
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const scopedTeams = parseIdList(options.projects);
    return withDatabase(async (database) => {
      const user = await findUser(database, options.email);
      const body = { label: options.label ?? 'CLI key', scopes, scoped_teams: scopedTeams ?? [], scoped_organizations: [] };
      const { key, rawValue } = await createPersonalApiKey(database, user.id, body).catch((error: unknown) => {
        throw keyInputError(error);
      });
      process.stdout.write(
        `Personal API key "${key.label}" for ${user.email} (shown only this once):\n${rawValue}\n` +
          `id: ${key.id}; scopes: ${key.scopes.join(', ')}${key.scopedTeams ? `; projects: ${key.scopedTeams.join(', ')}` : ''}\n`,
      );
      return 0;
    });
  }
  if (sub === 'list') {
    return withDatabase(async (database) => {
      const user = await findUser(database, options.email);
      for (const key of await listPersonalApiKeys(database, user.id)) {
        const projects = key.scopedTeams ? ` projects=${key.scopedTeams.join(',')}` : '';
        process.stdout.write(
          `${key.id}  ${key.maskValue}  ${key.label}  scopes=${key.scopes.join(',')}${projects}  created=${key.createdAt}\n`,
        );
      }
      return 0;
    });
  }
  if (sub === 'revoke') {
    const id = options.id?.trim();
    if (!id) throw new Error('keys revoke needs --id (the first column of `hoglet keys list`)');
    return withDatabase(async (database) => {
      const user = await findUser(database, options.email);
      const key = await revokePersonalApiKey(database, user.id, id);
      if (!key) throw new Error(`${user.email} has no personal API key with id ${id}; \`hoglet keys list\` shows the ids`);
      process.stdout.write(
        `Revoked personal API key ${key.id} (${key.maskValue}, "${key.label}") of ${user.email}; it stops working at once.\n`,
      );
      return 0;
    });
  }
  throw new Error(
    'usage: hoglet keys create --scopes S [--projects IDS] [--label L] | hoglet keys list | hoglet keys revoke --id ID (each with [--email E])',
  );
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
