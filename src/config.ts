import os from 'node:os';
import path from 'node:path';
import { parseAllowedHosts, type AllowedHosts } from './subscriptions/core/outbound-address.js';

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
  /** `http(s)://user:password@host:port` of a ClickHouse server for events; unset: the embedded engine under dataDir. */
  clickhouseUrl: string | undefined;
  /** The ClickHouse database holding Hoglet's tables on that server. */
  clickhouseDatabase: string;
  /** A ClickHouse cluster's name: Hoglet's tables are created on each of its nodes, replicated. */
  clickhouseCluster: string | undefined;
  /** The most memory ClickHouse may use for Hoglet's queries, in MB (the embedded engine's whole limit). */
  clickhouseMaxMemoryMb: number;
  logLevel: string;
  /** Fixes the value of the first personal API key created on an empty database. */
  bootstrapPersonalApiKey: string | undefined;
  /** E-mail of the first user created on an empty database. */
  bootstrapEmail: string;
  /** Public base URL, used in printed examples and links; derived from host and port when unset. */
  siteUrl: string | undefined;
  /** GeoIP for events and flags (`GEOIP=on`, the default); off, none is loaded. */
  geoip: boolean;
  /** A GeoLite2/GeoIP2 City .mmdb (or .mmdb.gz) to use instead of the bundled one. */
  geoipDatabase: string | undefined;
  /** Run the ingestion worker inside the server (`inline`) or only as `hoglet worker` (`off`). */
  ingestionWorker: 'inline' | 'off';
  /** Events per second one distinct id may send before its person processing is deferred; 0 = off. */
  spikeEventsPerSecond: number;
  /** How long capture gathers requests into one queue commit, in milliseconds. */
  ingestionCommitDelayMs: number;
  /** How often an idle ingestion worker looks for events other processes queued, in milliseconds. */
  ingestionPollMs: number;
  /**
   * How long an ingestion worker's partition leases last unrenewed, in milliseconds: a worker that
   * dies leaves its partitions to the others this long after its last renewal.
   */
  ingestionLeaseMs: number;
  /**
   * How many days a stored event's uuid is remembered, so that a copy resent within them is
   * dropped; an older copy is stored again. 0 remembers every uuid forever.
   */
  ingestionDedupeDays: number;
  /** Merge the sessions table into one part when ingestion goes quiet, or hourly (`SESSIONS_MERGE=on`, the default; events/sessions-merger.ts). */
  sessionsMerge: boolean;
  /** Trust X-Forwarded-* headers from a reverse proxy (true, false, a hop count or a list of CIDRs). */
  trustProxy: boolean | number | string;
  /** SMTP server for subscription e-mails (`smtp://user:pass@host:port`, `smtps://…`); unset: e-mail deliveries fail. */
  smtpUrl: string | undefined;
  /** Sender of subscription e-mails. */
  emailFrom: string;
  /** How often the subscription scheduler looks for due deliveries, in milliseconds. */
  subscriptionPollMs: number;
  /** Server processes sharing the port (`auto`: one per core); 1 serves from this process alone. */
  httpProcesses: number;
  /** On shutdown, how long requests in flight may take before their connections are cut, in milliseconds. */
  shutdownGraceMs: number;
  /** How long a client may take to send a whole request (headers and body) before it gets 408 and is closed, in milliseconds. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open, in milliseconds. */
  keepAliveTimeoutMs: number;
  /** Connections one server process holds at once; more are closed as they arrive. */
  maxConnections: number;
  /** The largest session recording request (`/s/`) after decompression, in bytes; a larger one is refused with 413. */
  recordingMaxBytes: number;
  /**
   * Internal hosts, addresses and networks (CIDRs) that webhook and Slack deliveries may reach;
   * every other loopback, private, link-local or internal-domain target is refused, as PostHog does.
   */
  webhookAllowedHosts: AllowedHosts;
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

function parseWorkerMode(value: string | undefined): 'inline' | 'off' {
  if (!value || value === 'inline') return 'inline';
  if (value === 'off') return 'off';
  throw new ConfigError(`INGESTION_WORKER must be "inline" or "off", got "${value}"`);
}

function parseOnOff(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new ConfigError(`${name} must be "on" or "off", got "${value}"`);
}

function parseNonNegative(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name} must be a number >= 0, got "${value}"`);
  return n;
}

function parseProcesses(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  if (value === 'auto') return os.availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw new ConfigError(`HTTP_PROCESSES must be "auto" or an integer from 1 to 256, got "${value}"`);
  return n;
}

/** A timer's period: at least 1 ms (0 would spin), at most what setTimeout takes (2^31 - 1). */
function parseMilliseconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 2_147_483_647)
    throw new ConfigError(`${name} must be a whole number of milliseconds from 1 to 2147483647, got "${value}"`);
  return n;
}

/** A whole number of days, 0 or more. */
function parseDays(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number of days from 0, got "${value}"`);
  return n;
}

/** A whole number of things, at least 1. */
function parseCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new ConfigError(`${name} must be a whole number from 1, got "${value}"`);
  return n;
}

function parseWebhookAllowedHosts(value: string | undefined): AllowedHosts {
  const parsed = parseAllowedHosts(value);
  if ('error' in parsed)
    throw new ConfigError(
      `WEBHOOK_ALLOWED_HOSTS must list host names, IP addresses or CIDRs (or *), separated by commas; cannot read "${parsed.error}"`,
    );
  return parsed;
}

function parseClickhouseUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!/^https?:\/\//.test(value))
    throw new ConfigError(
      `CLICKHOUSE_URL must start with http:// or https:// (ClickHouse's HTTP interface), got "${value.replace(/\/\/[^@/]*@/, '//…@')}"`,
    );
  return value;
}

function parseIdentifier(name: string, value: string | undefined, fallback: string): string {
  if (!value) return fallback;
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(value))
    throw new ConfigError(`${name} must be an identifier (letters, digits, _), got "${value}"`);
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
    clickhouseUrl: parseClickhouseUrl(env.CLICKHOUSE_URL?.trim()),
    clickhouseDatabase: parseIdentifier('CLICKHOUSE_DATABASE', env.CLICKHOUSE_DATABASE?.trim(), 'hoglet'),
    clickhouseCluster: env.CLICKHOUSE_CLUSTER?.trim()
      ? parseIdentifier('CLICKHOUSE_CLUSTER', env.CLICKHOUSE_CLUSTER.trim(), '')
      : undefined,
    clickhouseMaxMemoryMb: parseCount('CLICKHOUSE_MAX_MEMORY_MB', env.CLICKHOUSE_MAX_MEMORY_MB, 2048),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    bootstrapPersonalApiKey: env.HOGLET_BOOTSTRAP_PERSONAL_API_KEY?.trim() || undefined,
    bootstrapEmail: env.HOGLET_BOOTSTRAP_EMAIL?.trim() || 'admin@hoglet.local',
    siteUrl: env.SITE_URL?.trim().replace(/\/+$/, '') || undefined,
    trustProxy: parseTrustProxy(env.TRUST_PROXY?.trim()),
    geoip: parseOnOff('GEOIP', env.GEOIP?.trim(), true),
    geoipDatabase: env.GEOIP_DATABASE?.trim() || undefined,
    ingestionWorker: parseWorkerMode(env.INGESTION_WORKER?.trim()),
    spikeEventsPerSecond: parseNonNegative('INGESTION_SPIKE_EVENTS_PER_SECOND', env.INGESTION_SPIKE_EVENTS_PER_SECOND, 1000),
    ingestionCommitDelayMs: parseNonNegative('INGESTION_COMMIT_DELAY_MS', env.INGESTION_COMMIT_DELAY_MS, 2),
    ingestionPollMs: parseMilliseconds('INGESTION_POLL_MS', env.INGESTION_POLL_MS, 200),
    ingestionLeaseMs: parseMilliseconds('INGESTION_LEASE_MS', env.INGESTION_LEASE_MS, 15_000),
    ingestionDedupeDays: parseDays('INGESTION_DEDUPE_DAYS', env.INGESTION_DEDUPE_DAYS, 7),
    sessionsMerge: parseOnOff('SESSIONS_MERGE', env.SESSIONS_MERGE?.trim(), true),
    smtpUrl: env.SMTP_URL?.trim() || undefined,
    emailFrom: env.EMAIL_FROM?.trim() || 'Hoglet <hoglet@localhost>',
    subscriptionPollMs: parseNonNegative('SUBSCRIPTION_POLL_MS', env.SUBSCRIPTION_POLL_MS, 60_000),
    httpProcesses: parseProcesses(env.HTTP_PROCESSES?.trim()),
    shutdownGraceMs: parseMilliseconds('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, 10_000),
    requestTimeoutMs: parseMilliseconds('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 30_000),
    // Above the 60 s idle timeout of common load balancers, so that they close first (fastify's default).
    keepAliveTimeoutMs: parseMilliseconds('KEEP_ALIVE_TIMEOUT_MS', env.KEEP_ALIVE_TIMEOUT_MS, 72_000),
    maxConnections: parseCount('MAX_CONNECTIONS', env.MAX_CONNECTIONS, 10_000),
    recordingMaxBytes: parseCount('RECORDING_MAX_BYTES', env.RECORDING_MAX_BYTES, 10 * 1024 * 1024),
    webhookAllowedHosts: parseWebhookAllowedHosts(env.WEBHOOK_ALLOWED_HOSTS),
  };
}
