import type { Logger } from 'pino';

/**
 * Whether the database answers, as this process last saw it. Connections report here when they
 * are lost in use or cannot be made, and when one is made again: the outage is logged once when
 * it begins and once when it ends, however many requests fail in between.
 */
export class DatabaseAvailability {
  private downSince: number | undefined;
  private changes = 0;

  constructor(
    private readonly log: Logger | undefined,
    private readonly location: string,
  ) {}

  /**
   * Counts the outages begun and ended. A connection made (or attempt begun) at one count that
   * fails at a later one is part of an outage already told: one termination of many connections
   * is one outage, even when the first new connection comes before the last old one has failed.
   */
  get generation(): number {
    return this.changes;
  }

  /** A connection in use was lost, or none could be made; `since`: the generation it was made (tried) at. */
  lost(error: unknown, since = this.changes): void {
    if (this.downSince !== undefined || since !== this.changes) return;
    this.changes++;
    this.downSince = Date.now();
    this.log?.error({ err: error, database: this.location }, 'database unavailable; requests that need it get 503 until it is back');
  }

  /** A connection was made. */
  restored(): void {
    if (this.downSince === undefined) return;
    this.changes++;
    const downMs = Date.now() - this.downSince;
    this.downSince = undefined;
    this.log?.info({ database: this.location, downMs }, 'database available again');
  }
}

/**
 * Connection failures by code: PostgreSQL's shutdown and start-up (57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now, 57P05 idle_session_timeout), too many connections
 * (53300), and the socket's own errors. Class 08 (connection exception) is matched by prefix.
 */
const UNAVAILABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What pg and pg-pool say, without a code, of a connection lost, refused or timed out. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated', // "… unexpectedly", "… due to connection timeout"
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect', // waited for a pool connection
  'timeout expired', // a connection attempt's own timeout
];

/**
 * Whether a database operation failed because the database could not be reached (restarting,
 * down, a connection lost or refused): the request is not at fault and may succeed when tried
 * again, so it is answered 503. Errors of other kinds, and SQLite's, are not.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((text) => message.startsWith(text))) return true;
  // Every address of a host name refused (node's AggregateError).
  return Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable);
}
