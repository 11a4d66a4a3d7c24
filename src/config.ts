import path from 'node:path';

/**
 * Every setting Hoglet reads from the environment, in one place. The README's configuration table
 * is written from this list; keep the two in step.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `postgres://…` selects PostgreSQL; unset means the embedded SQLite file under dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL schema for Hoglet's tables (created when missing), so one database can host several. */
  databaseSchema: string | undefined;
  logLevel: string;
  /** Fixes the value of the first personal API key created on an empty database. */
  bootstrapPersonalApiKey: string | undefined;
  /** E-mail of the first user created on an empty database. */
  bootstrapEmail: string;
  /** Public base URL, used in printed examples and links; derived from host and port when unset. */
  siteUrl: string | undefined;
  /** Trust X-Forwarded-* headers from a reverse proxy (true, false, a hop count or a list of CIDRs). */
  trustProxy: boolean | number | string;
}

export class ConfigError extends Error {}

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${value}"`);
  }
  return port;
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

function parseSchema(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(value)) {
    throw new ConfigError(`DATABASE_SCHEMA must be a lower-case SQL identifier, got "${value}"`);
  }
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(
      `DATABASE_URL must start with postgres:// or postgresql:// (leave it unset for the embedded SQLite file), got "${databaseUrl}"`,
    );
  }
  return {
    port: parsePort(env.PORT, 8000),
    host: env.HOST?.trim() || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR?.trim() || './data'),
    databaseUrl,
    databaseSchema: parseSchema(env.DATABASE_SCHEMA?.trim()),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    bootstrapPersonalApiKey: env.HOGLET_BOOTSTRAP_PERSONAL_API_KEY?.trim() || undefined,
    bootstrapEmail: env.HOGLET_BOOTSTRAP_EMAIL?.trim() || 'admin@hoglet.local',
    siteUrl: env.SITE_URL?.trim().replace(/\/+$/, '') || undefined,
    trustProxy: parseTrustProxy(env.TRUST_PROXY?.trim()),
  };
}
