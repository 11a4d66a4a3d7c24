import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagDefinitionsCache } from '../../src/flags/definitions-cache.js';
import { BACKEND } from '../helpers/backend.js';
import { runHoglet } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { askFlags, createFlag, flagsPath } from './flag-helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

describe('cached flag definitions', () => {
  it('are read once and dropped when a change is announced', async () => {
    const ctx = server.running.ctx;
    const cache = flagDefinitionsCache(ctx);
    const first = cache.get(server.bootstrap.team.projectId);
    expect(cache.get(server.bootstrap.team.projectId)).toBe(first);
    await ctx.changes.publish({ topic: 'feature_flags', id: server.bootstrap.team.projectId });
    expect(cache.get(server.bootstrap.team.projectId)).not.toBe(first);
  });

  it('are given without waiting once loaded, until a change is announced', async () => {
    const ctx = server.running.ctx;
    const cache = flagDefinitionsCache(ctx);
    const projectId = server.bootstrap.team.projectId;
    await ctx.changes.publish({ topic: 'feature_flags', id: projectId });
    expect(cache.loaded(projectId)).toBeUndefined();
    const loading = cache.get(projectId);
    expect(cache.loaded(projectId)).toBeUndefined();
    const project = await loading;
    expect(cache.loaded(projectId)).toBe(project);
    await ctx.changes.publish({ topic: 'feature_flags', id: projectId });
    expect(cache.loaded(projectId)).toBeUndefined();
  });

  // Two processes on one database (NOTIFY on PostgreSQL, polled notices on SQLite): an edit
  // through one process reaches the other's /decide, well before its cached copy would expire.
  it(`are dropped in another process sharing the ${BACKEND} database`, async () => {
    const other = runHoglet(['serve'], { ...server.storage.env, PORT: '0', HOST: '127.0.0.1', INGESTION_WORKER: 'off' });
    try {
      const [, otherUrl] = await other.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/);
      const flag = await createFlag(server, { key: 'shared', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
      const ask = async () => {
        const res = await fetch(`${otherUrl}/decide/?v=3`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: server.bootstrap.team.apiToken, distinct_id: 'd' }),
        });
        return ((await res.json()) as any).featureFlags.shared;
      };
      expect(await ask()).toBe(true);
      await server.request(flagsPath(server, `${flag.id}/`), { method: 'PATCH', body: { active: false } });
      // Bounded well inside the cache's 30 s lifetime (definitions-cache.ts): only the change
      // notice, not the entry's expiry, can end the wait.
      await waitFor(ask, {
        what: 'the other process to stop serving the deactivated flag',
        until: (value) => value === undefined,
        timeoutMs: 10_000,
      });
      expect((await askFlags(server, '/decide/?v=3', { distinct_id: 'd' })).featureFlags.shared).toBeUndefined();
    } finally {
      other.child.kill('SIGTERM');
      await other.exited;
    }
  }, 30_000);
});
