/**
 * What the worker tests that run their own workers share: a fresh server per test with no worker
 * of its own, and the queue rows they write.
 */
import { afterAll } from 'vitest';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import type { QueueRow } from '../../../src/ingestion/queue.js';
import { BACKEND, TEST_DATABASE_URL } from '../../helpers/backend.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * Registers (in the calling file) the closing of every server it starts, after the file; returns
 * `setUp`, which starts one. With `secondHandle`, a test also gets a second handle (pool) on the
 * same database, as a second worker process has: on SQLite (one writer) it is the same handle.
 */
export function serverPerTest(options: { secondHandle?: boolean } = {}) {
  const servers: TestServer[] = [];
  const handles: Database[] = [];
  afterAll(async () => {
    for (const h of handles) await h.close();
    for (const s of servers) await s.close();
  });
  return async function setUp() {
    const server = await startTestServer({ INGESTION_WORKER: 'off' });
    servers.push(server);
    const { database, ingestionQueue, analytics } = server.running.ctx;
    let second = database;
    if (options.secondHandle && BACKEND === 'postgres') {
      second = await openDatabase({ databaseUrl: TEST_DATABASE_URL, pgSchema: server.storage.schema! });
      handles.push(second);
    }
    const teamId = server.bootstrap.team.id;
    return { server, database, second, ingestionQueue, analytics, teamId, settle: () => server.settle() };
  };
}

/**
 * A maker of realtime queue rows, one event each: every row a second after the one before,
 * counting from `start`, with a uuid of its own.
 */
export function queueRowMaker(start: string) {
  let n = 0;
  return function row(teamId: number, distinctId: string, event: string, properties: Record<string, unknown>): QueueRow {
    n++;
    const now = new Date(Date.parse(start) + n * 1000).toISOString();
    const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    return {
      teamId,
      lane: 'realtime',
      distinctId,
      payload: { uuid, event, distinct_id: distinctId, properties, timestamp: now, now, sent_at: null, ip: null },
    };
  };
}
