import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { MAX_PROCESSING_ATTEMPTS } from '../../src/ingestion/worker/worker.js';
import type { BootstrapResult } from '../../src/environments/bootstrap.js';
import { freshStorage, type TestStorage } from './backend.js';
import { waitFor } from './wait.js';
import { outboxPending } from '../../src/events/outbox-copy.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  method?: string;
  key?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  running: RunningApp;
  bootstrap: BootstrapResult;
  /** The bootstrap personal API key (all scopes). */
  key: string;
  storage: TestStorage;
  /** A real HTTP request to the server; JSON bodies are parsed when they are JSON. */
  request<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Waits until the ingestion worker has processed everything committed so far. */
  settle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real Hoglet on a loopback port, on fresh storage of the backend under test. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const storage = await freshStorage();
  const config: Config = loadConfig({ ...storage.env, PORT: '0', HOST: '127.0.0.1', ...env });
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let running: RunningApp;
  try {
    running = await startApp(config, { log });
  } catch (error) {
    await storage.dispose();
    throw error;
  }
  // Serving starts before GeoIP has loaded; tests of flags' GeoIP targeting need it from their first request.
  await running.ctx.geoipReady;
  if (!running.bootstrap) throw new Error('a fresh test database must bootstrap');
  const bootstrap = running.bootstrap;
  const url = running.url;

  async function request<T>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? bootstrap.personalApiKey : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url + path, { method: options.method ?? 'GET', headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the text is the body
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  return {
    url,
    running,
    bootstrap,
    key: bootstrap.personalApiKey,
    storage,
    request,
    async settle(timeoutMs = 30_000) {
      const { db } = running.ctx.database;
      // Parked rows (events that failed every attempt) stay in the table but are not work.
      const unprocessed = async () =>
        Number(
          (
            await db
              .selectFrom('ingestion_queue')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('attempts', '<', MAX_PROCESSING_ATTEMPTS)
              .executeTakeFirst()
          )?.n ?? 0,
        );
      await waitFor(unprocessed, { what: 'the ingestion queue to empty (rows left)', until: (n) => n === 0, timeoutMs });
      // A processed batch's events reach ClickHouse through the outbox, right after its commit.
      await waitFor(() => outboxPending(db), { what: 'the analytics outbox to empty (rows left)', until: (n) => n === 0, timeoutMs });
    },
    async close() {
      await running.close();
      await storage.dispose();
    },
  };
}

/** The file's test server (see useTestServer), with its project API key at hand. */
export interface SharedTestServer extends TestServer {
  /** The bootstrap environment's project API key (`phc_…`), what SDKs send. */
  readonly token: string;
  /** Sends `events` to /batch/ with that key, as an SDK does, and waits until the worker has processed them. */
  ingest(events: unknown[]): Promise<void>;
}

/**
 * One test server for the whole file: started in `beforeAll`, closed in `afterAll`. Call it at the
 * top level of a test file; the object it returns stands for the running server inside tests and
 * hooks (and throws if used before `beforeAll` has started it).
 */
export function useTestServer(env: Record<string, string> = {}): SharedTestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startTestServer(env);
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): TestServer => {
    if (!started) throw new Error('the test server is started in beforeAll: use it inside tests and hooks');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get running() {
      return current().running;
    },
    get bootstrap() {
      return current().bootstrap;
    },
    get key() {
      return current().key;
    },
    get storage() {
      return current().storage;
    },
    get token() {
      return current().bootstrap.team.apiToken;
    },
    request: (path, options) => current().request(path, options),
    settle: (timeoutMs) => current().settle(timeoutMs),
    async ingest(events) {
      const server = current();
      const res = await server.request('/batch/', {
        method: 'POST',
        key: null,
        body: { api_key: server.bootstrap.team.apiToken, batch: events },
      });
      if (res.status !== 200) throw new Error(`/batch/ answered ${res.status}: ${JSON.stringify(res.body)}`);
      await server.settle();
    },
    close: () => current().close(),
  };
}
