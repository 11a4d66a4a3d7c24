/**
 * PostgreSQL going away while Hoglet serves: every connection the server holds is terminated
 * (pg_terminate_backend, as a restart or an operator does) under load, in one process and in a
 * cluster of two; and the database is unreachable for a while (a TCP relay in front of it stops
 * answering, then refuses every connection). The server must stay up, answer 503 (never 500)
 * while it cannot reach the database, serve again by itself, and store every event it
 * acknowledged exactly once. The machine's PostgreSQL itself is never restarted: other test
 * runs share it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openAnalyticsStore, startApp } from '../../src/app.js';
import type { AnalyticsEngine } from '../../src/platform/analytics/engine.js';
import { ch, raw, typed } from '../../src/platform/analytics/sql.js';
import { personUuidFromDistinctId } from '../../src/persons/person-uuid.js';
import { loadConfig } from '../../src/config.js';
import { isDatabaseUnavailable } from '../../src/platform/db/availability.js';
import { BACKEND, TEST_DATABASE_URL, freshStorage } from '../helpers/backend.js';
import { runHoglet } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';
import { rawRequest } from '../helpers/raw-request.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** waitFor in this file's argument order. */
function poll<T>(read: () => Promise<T> | T, until: (value: T) => boolean, what: string, timeoutMs?: number): Promise<T> {
  return waitFor(read, { what, until, timeoutMs });
}

/** What an error rejected with, for the classification test. */
async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

/** A loopback TCP server that does `onSocket` with every connection (closed by the cleanups). */
async function tcpServer(onSocket: (socket: net.Socket) => void): Promise<{ port: number; server: net.Server; sockets: Set<net.Socket> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as net.AddressInfo).port, server, sockets };
}

/**
 * A TCP relay to PostgreSQL, which the test can take down: every connection through it is cut,
 * and new ones are closed as soon as they come (`refusing`) or held without an answer (`silent`,
 * a host that is gone) until it is up again. `turnedAway` counts the connections not relayed since.
 */
async function relayTo(target: URL) {
  let mode: 'up' | 'refusing' | 'silent' = 'up';
  let turnedAway = 0;
  const relay = await tcpServer((socket) => {
    if (mode !== 'up') {
      turnedAway++;
      if (mode === 'refusing') socket.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  return {
    port: relay.port,
    get turnedAway() {
      return turnedAway;
    },
    down(how: 'refusing' | 'silent') {
      mode = how;
      turnedAway = 0;
      for (const socket of relay.sockets) socket.destroy();
    },
    up() {
      mode = 'up';
    },
  };
}

describe('isDatabaseUnavailable', () => {
  it('is true of connections refused, lost, timed out and shut down', async () => {
    const closed = await tcpServer(() => undefined);
    const port = closed.port;
    await new Promise((resolve) => closed.server.close(resolve));
    const refused = await failureOf(() => new pg.Client({ connectionString: `postgres://hoglet@127.0.0.1:${port}/x` }).connect());
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');

    const hangUp = await tcpServer((socket) => socket.destroy());
    const lost = await failureOf(() => new pg.Client({ connectionString: `postgres://hoglet@127.0.0.1:${hangUp.port}/x` }).connect());
    expect((lost as Error).message).toBe('Connection terminated unexpectedly');

    // A server that never answers: the pool's connect timeout, and its wait for a free connection.
    const silent = await tcpServer(() => undefined);
    const pool = new pg.Pool({ connectionString: `postgres://hoglet@127.0.0.1:${silent.port}/x`, max: 1, connectionTimeoutMillis: 200 });
    pool.on('error', () => undefined);
    const [connecting, waiting] = await Promise.all([failureOf(() => pool.connect()), failureOf(() => pool.connect())]);
    expect((connecting as Error).message).toBe('Connection terminated due to connection timeout');
    expect((waiting as Error).message).toBe('timeout exceeded when trying to connect');
    await pool.end();

    for (const error of [refused, lost, connecting, waiting]) expect(isDatabaseUnavailable(error)).toBe(true);
    // What PostgreSQL says while it stops or starts, class 08, and every address of a name refused.
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300'])
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([refused, refused]))).toBe(true);
  });

  it(`is false of the request's own faults and other failures (${BACKEND})`, async () => {
    const others: unknown[] = [
      new Error('boom'),
      new TypeError('x is not a function'),
      null,
      undefined,
      'Connection terminated',
      { code: 57 },
    ];
    others.push(new AggregateError([new Error('boom'), Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]));
    if (BACKEND === 'postgres') {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      cleanups.push(() => client.end());
      others.push(await failureOf(() => client.query('SELECT FROM')));
      others.push(await failureOf(() => client.query("SELECT 'a\\u0000b'::text, E'\\x00'")));
      others.push(await failureOf(() => client.query('CREATE TEMP TABLE t (id int primary key); INSERT INTO t VALUES (1), (1)')));
    } else {
      const raw = new BetterSqlite3(':memory:');
      cleanups.push(async () => raw.close());
      others.push(await failureOf(async () => raw.prepare('SELECT FROM')));
      raw.exec('CREATE TABLE t (id integer primary key)');
      others.push(await failureOf(async () => raw.exec('INSERT INTO t VALUES (1), (1)')));
    }
    for (const error of others) expect(isDatabaseUnavailable(error), String(error)).toBe(false);
  });
});

interface Answer {
  path: string;
  status: number;
  body: string;
  /** Its place among the requests begun (sent), counted from 1: what came after what, without a clock. */
  begun: number;
  /** The events a /batch/ request sent. */
  uuids: string[];
}

/** How many requests `send` has begun. */
let requestsBegun = 0;

/** One request on a connection of its own; a network failure or no answer in 30 s is status 0. */
function send(url: string, path: string, body: unknown, uuids: string[] = [], headers: Record<string, string> = {}): Promise<Answer> {
  const begun = ++requestsBegun;
  return rawRequest(`${url}${path}`, {
    method: 'POST',
    timeoutMs: 30_000,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then(
    (answer) => ({ path, status: answer.status, body: answer.text, begun, uuids }),
    (error: unknown) => ({ path, status: 0, body: String(error), begun, uuids }),
  );
}

/** A few SDK-like clients sending /batch/ and /decide/ without pause until stopped. */
class Load {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly clients: Array<Promise<void>>;

  constructor(
    private readonly url: string,
    private readonly token: string,
    clients = 4,
  ) {
    this.clients = Array.from({ length: clients }, (_, i) => this.client(i));
  }

  private async client(i: number): Promise<void> {
    for (let n = 0; this.running; n++) {
      const distinctId = `user-${i}-${n % 5}`;
      if (n % 3 === 2) {
        this.answers.push(await send(this.url, '/decide/?v=3', { api_key: this.token, distinct_id: distinctId }));
        continue;
      }
      const batch = Array.from({ length: 3 }, () => ({
        event: 'outage',
        distinct_id: distinctId,
        uuid: randomUUID(),
        properties: { client: i },
      }));
      this.answers.push(
        await send(
          this.url,
          '/batch/',
          { api_key: this.token, batch },
          batch.map((e) => e.uuid),
        ),
      );
    }
  }

  /** Resolves once requests of both kinds begun after the `since`-th (requestsBegun then) were answered 200. */
  async servingSince(since: number, what: string): Promise<void> {
    const served = (path: string) => this.answers.some((a) => a.path.startsWith(path) && a.begun > since && a.status === 200);
    await poll(() => served('/batch/') && served('/decide/'), Boolean, what);
  }

  async stop(): Promise<Answer[]> {
    this.running = false;
    await Promise.all(this.clients);
    return this.answers;
  }
}

/** An admin connection of the test's own, to PostgreSQL directly. */
async function adminConnection(): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  cleanups.push(() => admin.end());
  return admin;
}

/** The test database's URL, with the application name the server's connections will show. */
function urlNamed(applicationName: string, base = TEST_DATABASE_URL!): string {
  const url = new URL(base);
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

/**
 * Terminates every connection of the server's while some of its capture commits are in flight:
 * `locker` locks the queue table; the test waits until a capture commit waits for the lock (a
 * writer to the queue that is not the ingestion worker, whose transactions hold the worker
 * lease's row), terminates the server's connections, then lets go of the lock. `admin` looks
 * outside the lock's transaction, which would see pg_stat_activity as it was when it began.
 * Returns how many connections were terminated.
 */
async function terminateInFlight(admin: pg.Client, locker: pg.Client, schema: string, applicationName: string): Promise<number> {
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE "${schema}".ingestion_queue IN ACCESS EXCLUSIVE MODE`);
  try {
    const waiting = `
      SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE a.application_name = $1 AND NOT l.granted AND l.mode = 'RowExclusiveLock' AND l.relation = $2::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_locks w WHERE w.pid = l.pid AND w.relation = $3::regclass)`;
    const tables = [`"${schema}".ingestion_queue`, `"${schema}".worker_leases`];
    await poll(
      async () => (await admin.query(waiting, [applicationName, ...tables])).rows[0].n as number,
      (n) => n > 0,
      'a capture commit waiting for the lock',
    );
    const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
      applicationName,
    ]);
    return killed.rowCount ?? 0;
  } finally {
    await locker.query('ROLLBACK');
  }
}

/** Waits until the server's processes all listen for changes again (their listeners' connections are back). */
async function listening(admin: pg.Client, applicationName: string, processes: number): Promise<void> {
  const listeners = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`;
  await poll(
    async () => (await admin.query(listeners, [applicationName])).rows[0].n as number,
    (n) => n === processes,
    'the change listeners to listen again',
  );
}

/** The stored copies of each of these events in ClickHouse, and how many of them are personless. */
async function storedCopies(analytics: AnalyticsEngine, uuids: string[]): Promise<Map<string, { copies: number; personless: number }>> {
  // Aliases other than the columns' names: ClickHouse's WHERE would read an alias.
  const { sql, params } = ch`SELECT toString(uuid) AS event_uuid, team_id, distinct_id, toString(person_id) AS person
    FROM ${raw(analytics.table('events'))} WHERE uuid IN ${typed('Array(UUID)', uuids)}`.compile();
  const rows = await analytics.query<{ event_uuid: string; team_id: number; distinct_id: string; person: string }>(sql, params);
  const copies = new Map<string, { copies: number; personless: number }>();
  for (const row of rows) {
    const seen = copies.get(row.event_uuid) ?? { copies: 0, personless: 0 };
    seen.copies++;
    // A personless event carries its distinct id's own uuid, not a person's.
    if (row.person === personUuidFromDistinctId(row.team_id, row.distinct_id)) seen.personless++;
    copies.set(row.event_uuid, seen);
  }
  return copies;
}

async function queueLength(admin: pg.Client, schema: string): Promise<number> {
  return (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".ingestion_queue`)).rows[0].n as number;
}

/** Processed events on their way to ClickHouse. */
async function outboxLength(admin: pg.Client, schema: string): Promise<number> {
  return (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".analytics_outbox`)).rows[0].n as number;
}

/**
 * What the load got: only 200 and 503 (the error envelope) answers, some 503s (the commits the
 * termination hit); then every event answered 200 is stored once, with its person, and those
 * answered 503 at most once.
 */
async function expectOutcome(answers: Answer[], admin: pg.Client, schema: string, analytics: AnalyticsEngine): Promise<void> {
  const unexpected = answers.filter((a) => a.status !== 200 && a.status !== 503);
  expect(unexpected.map((a) => `${a.path} ${a.status} ${a.body}`)).toEqual([]);
  const unavailable = answers.filter((a) => a.status === 503);
  expect(unavailable.filter((a) => a.path === '/batch/').length).toBeGreaterThan(0);
  for (const a of unavailable) {
    expect(JSON.parse(a.body)).toEqual({
      type: 'server_error',
      code: 'service_unavailable',
      detail: expect.stringContaining('database is unavailable'),
      attr: null,
    });
  }
  await poll(
    () => queueLength(admin, schema),
    (n) => n === 0,
    'the ingestion worker to empty the queue',
    30_000,
  );
  await poll(
    () => outboxLength(admin, schema),
    (n) => n === 0,
    'the processed events to reach ClickHouse',
    30_000,
  );
  const acknowledged = answers.filter((a) => a.path === '/batch/' && a.status === 200).flatMap((a) => a.uuids);
  const refused = unavailable.flatMap((a) => a.uuids);
  expect(acknowledged.length).toBeGreaterThan(0);
  const stored = await storedCopies(analytics, [...acknowledged, ...refused]);
  const wrong = acknowledged.filter((uuid) => stored.get(uuid)?.copies !== 1 || stored.get(uuid)?.personless !== 0);
  expect(wrong.map((uuid) => [uuid, stored.get(uuid)])).toEqual([]);
  expect(refused.filter((uuid) => (stored.get(uuid)?.copies ?? 0) > 1)).toEqual([]);
}

// PostgreSQL only: SQLite is a file the process opens itself, with no connection to lose.
if (BACKEND === 'postgres') {
  describe('PostgreSQL connections lost under load', () => {
    it('one process answers 503, serves again by itself, and stores each acknowledged event once', async () => {
      const applicationName = `hoglet-outage-${randomBytes(4).toString('hex')}`;
      const storage = await freshStorage();
      cleanups.push(() => storage.dispose());
      const lines: string[] = [];
      const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      const config = loadConfig({ ...storage.env, DATABASE_URL: urlNamed(applicationName), PORT: '0', HOST: '127.0.0.1' });
      const running = await startApp(config, { log });
      cleanups.push(() => running.close());
      const [admin, locker] = [await adminConnection(), await adminConnection()];

      const load = new Load(running.url, running.bootstrap!.team.apiToken);
      cleanups.push(() => load.stop());
      await load.servingSince(0, 'the load to be served');
      for (let round = 1; round <= 2; round++) {
        await listening(admin, applicationName, 1);
        const terminatedAt = requestsBegun;
        // The change listener's connection and the pool's (one commit waits on one of them).
        expect(await terminateInFlight(admin, locker, storage.schema!, applicationName)).toBeGreaterThanOrEqual(2);
        await load.servingSince(terminatedAt, `round ${round}: serving again`);
      }
      await listening(admin, applicationName, 1);
      const answers = await load.stop();
      await expectOutcome(answers, admin, storage.schema!, running.ctx.analytics);

      // The connections are Hoglet's again, and the outages were logged, not every failed request.
      const named = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
      expect(named.rows[0].n).toBeGreaterThan(0);
      const messages = lines.map((line) => JSON.parse(line) as { msg: string; level: number });
      expect(messages.filter((m) => m.msg.startsWith('database unavailable')).length).toBe(2);
      expect(messages.filter((m) => m.msg === 'database available again').length).toBe(2);
      expect(messages.filter((m) => m.msg === 'unhandled error' || m.msg === 'ingestion queue commit failed')).toEqual([]);
    }, 120_000);

    it('a cluster of two processes keeps both, answers 503, and serves again by itself', async () => {
      const applicationName = `hoglet-outage-${randomBytes(4).toString('hex')}`;
      const storage = await freshStorage();
      cleanups.push(() => storage.dispose());
      const key = 'phx_outage0123456789abcdefghijklmnopqrstuvwxyzAB';
      const p = runHoglet(['serve'], {
        ...storage.env,
        DATABASE_URL: urlNamed(applicationName),
        PORT: '0',
        HOST: '127.0.0.1',
        HTTP_PROCESSES: '2',
        HOGLET_BOOTSTRAP_PERSONAL_API_KEY: key,
      });
      cleanups.push(async () => {
        if (p.child.exitCode !== null) return;
        p.child.kill('SIGTERM');
        await p.exited;
      });
      const [, url] = await p.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet cluster ready/, 60_000);
      const servers = fs.readFileSync(`/proc/${p.child.pid}/task/${p.child.pid}/children`, 'utf8').trim().split(/\s+/);
      expect(servers).toHaveLength(2);
      const projects = JSON.parse((await rawRequest(`${url}/api/projects/`, { headers: { authorization: `Bearer ${key}` } })).text);
      const [admin, locker] = [await adminConnection(), await adminConnection()];

      const load = new Load(url!, projects.results[0].api_token as string);
      cleanups.push(() => load.stop());
      await load.servingSince(0, 'the load to be served');
      for (let round = 1; round <= 2; round++) {
        await listening(admin, applicationName, 2);
        const terminatedAt = requestsBegun;
        const terminated = await terminateInFlight(admin, locker, storage.schema!, applicationName);
        await load.servingSince(terminatedAt, `round ${round}: serving again`);
        // Neither server process died (none was replaced).
        expect(p.output()).not.toContain('server process died');
        // Both processes' change listeners, and the connection of the commit that waits.
        expect(terminated).toBeGreaterThanOrEqual(3);
      }
      await listening(admin, applicationName, 2);
      expect(fs.readFileSync(`/proc/${p.child.pid}/task/${p.child.pid}/children`, 'utf8').trim().split(/\s+/)).toEqual(servers);
      // ClickHouse's folder is the cluster's: this process reaches it through the process that owns it.
      const analytics = await openAnalyticsStore(loadConfig(storage.env), pino({ level: 'silent' }));
      cleanups.push(() => analytics.close());
      await expectOutcome(await load.stop(), admin, storage.schema!, analytics);
    }, 180_000);
  });

  describe('PostgreSQL unreachable for a while', () => {
    it('answers 503 while it cannot connect, is not ready, then serves again, and its caches miss no change', async () => {
      const applicationName = `hoglet-outage-${randomBytes(4).toString('hex')}`;
      const storage = await freshStorage();
      cleanups.push(() => storage.dispose());
      const relay = await relayTo(new URL(TEST_DATABASE_URL!));
      const viaRelay = new URL(urlNamed(applicationName));
      viaRelay.host = `127.0.0.1:${relay.port}`;
      const lines: string[] = [];
      const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      const config = loadConfig({ ...storage.env, DATABASE_URL: viaRelay.toString(), PORT: '0', HOST: '127.0.0.1' });
      const running = await startApp(config, { log });
      cleanups.push(() => running.close());
      const admin = await adminConnection();
      const { url } = running;
      const team = running.bootstrap!.team;
      const key = running.bootstrap!.personalApiKey;
      const capture = (token: string) =>
        send(url, '/batch/', { api_key: token, batch: [{ event: 'outage', distinct_id: 'someone', uuid: randomUUID() }] }, []);
      const decide = (token: string) => send(url, '/decide/?v=3', { api_key: token, distinct_id: 'someone' });
      const decideStatus = async (token: string) => (await decide(token)).status;
      const flagOf = async (token: string) => JSON.parse((await decide(token)).body).featureFlags?.['outage-flag'] as unknown;
      const get = (path: string, headers: Record<string, string> = {}): Promise<Answer> =>
        rawRequest(`${url}${path}`, { headers, timeoutMs: 30_000 }).then(
          (answer) => ({ path, status: answer.status, body: answer.text, begun: 0, uuids: [] }),
          (error: unknown) => ({ path, status: 0, body: String(error), begun: 0, uuids: [] }),
        );
      // Replaces the environment's token behind the server's back, and announces it as another process would.
      const replaceToken = async () => {
        const token = `phc_${randomBytes(16).toString('hex')}`;
        await admin.query(`UPDATE "${storage.schema}".teams SET api_token = $1 WHERE id = $2`, [token, team.id]);
        await admin.query('SELECT pg_notify($1, $2)', [`hoglet_changes_${storage.schema}`, JSON.stringify({ topic: 'team', id: team.id })]);
        return token;
      };

      // The environment's first event, processed: that drops its cached copies too, and must not
      // do so later in the test.
      const firstEvent = new Promise((resolve) => running.ctx.changes.on('team', resolve));
      expect((await capture(team.apiToken)).status).toBe(200);
      await firstEvent;
      const flag = { key: 'outage-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } };
      const created = await send(url, `/api/projects/${team.projectId}/feature_flags/`, flag, [], { authorization: `Bearer ${key}` });
      expect(created.status).toBe(201);
      expect(await flagOf(team.apiToken)).toBe(true); // the environment and its flags are cached now

      // A host that does not answer at all: requests wait for the connect timeout, not for ever
      // (the client gives up after 30 s: status 0).
      relay.down('silent');
      const [silentCapture, silentReadiness] = await Promise.all([capture(team.apiToken), get('/_readiness')]);
      expect([silentCapture.status, silentReadiness.status]).toEqual([503, 503]);
      // A database that refuses connections (restarting).
      relay.down('refusing');
      const outage = [await capture(team.apiToken), await get('/api/projects/', { authorization: `Bearer ${key}` })];
      for (const answer of outage) {
        expect(answer.status).toBe(503);
        expect(JSON.parse(answer.body)).toMatchObject({ type: 'server_error', code: 'service_unavailable', attr: null });
      }
      expect((await get('/_readiness')).status).toBe(503);
      // Changes made while the server cannot hear them: the flag is switched off, the token replaced.
      await admin.query(`UPDATE "${storage.schema}".feature_flags SET active = false WHERE id = $1`, [JSON.parse(created.body).id]);
      await admin.query('SELECT pg_notify($1, $2)', [
        `hoglet_changes_${storage.schema}`,
        JSON.stringify({ topic: 'feature_flags', id: team.projectId }),
      ]);
      const replaced = await replaceToken();
      // Several attempts turned away: long enough that a listener which tries once more gives up.
      await poll(
        () => relay.turnedAway,
        (n) => n >= 8,
        'attempts to reach the database',
      );

      relay.up();
      await poll(
        async () => (await get('/_readiness')).status,
        (status) => status === 200,
        'ready again',
        10_000,
      );
      expect((await capture(replaced)).status).toBe(200);
      // The notices sent during the outage were lost; what was cached went all the same.
      await poll(
        () => decideStatus(team.apiToken),
        (status) => status === 401,
        'the replaced token refused',
        10_000,
      );
      // (An inactive flag is left out of the answer.)
      await poll(
        () => flagOf(replaced),
        (value) => value === undefined,
        'the flag switched off',
        10_000,
      );
      // And the server hears notices again.
      await replaceToken();
      await poll(
        () => decideStatus(replaced),
        (status) => status === 401,
        'a notice after the outage heard',
        10_000,
      );

      const messages = lines.map((line) => JSON.parse(line) as { msg: string });
      expect(messages.filter((m) => m.msg.startsWith('database unavailable')).length).toBe(1);
      expect(messages.filter((m) => m.msg === 'database available again').length).toBe(1);
      expect(messages.filter((m) => m.msg === 'unhandled error' || m.msg.startsWith('readiness check'))).toEqual([]);
    }, 120_000);
  });
}
