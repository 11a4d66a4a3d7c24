import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { runHoglet, type HogletProcess } from '../../helpers/process.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer | undefined;
const processes: HogletProcess[] = [];
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await server?.close();
});

/** Events waiting in the queue (a /batch/ request's events are one row). */
async function queued(s: TestServer): Promise<number> {
  const row = await s.running.ctx.database.db
    .selectFrom('ingestion_queue')
    .select((eb) => eb.fn.sum<number | string>('event_count').as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('hoglet worker as separate processes', () => {
  it('processes what a server with INGESTION_WORKER=off accepted, each event once, with two workers', async () => {
    server = await startTestServer({ INGESTION_WORKER: 'off' });
    expect(server.running.worker).toBeUndefined();
    const token = server.bootstrap.team.apiToken;
    const uuids: string[] = [];
    for (let r = 0; r < 10; r++) {
      const batch = Array.from({ length: 50 }, (_, i) => {
        const uuid = randomUUID();
        uuids.push(uuid);
        return { uuid, event: 'split', properties: { distinct_id: `w-${i % 7}`, $set: { r } } };
      });
      const res = await fetch(`${server.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, batch }),
      });
      expect(res.status).toBe(200);
    }
    // Each 200 came after its commit, and nothing here processes the queue (no worker in the
    // server, none started yet): all 500 are there, with nothing to wait for.
    expect(await queued(server)).toBe(500);

    const workers = [0, 1].map(() => runHoglet(['worker'], server!.storage.env));
    processes.push(...workers);
    await Promise.all(workers.map((w) => w.waitFor(/ingestion worker started/)));
    await server.settle(60_000);

    const events = await server.request(`/api/environments/${server.bootstrap.team.id}/events/?event=split&limit=1000`);
    const ids = events.body.results.map((e: any) => e.id);
    expect(ids).toHaveLength(500);
    expect(new Set(ids)).toEqual(new Set(uuids));
    const person = await server.request(`/api/environments/${server.bootstrap.team.id}/persons/?distinct_id=w-3`);
    expect(person.body.results[0].properties.r).toBe(9);

    for (const w of workers) w.child.kill('SIGTERM');
    for (const w of workers) {
      const { code } = await w.exited;
      expect(code).toBe(0);
      expect(w.output()).toContain('ingestion worker stopped');
    }
  });
});
