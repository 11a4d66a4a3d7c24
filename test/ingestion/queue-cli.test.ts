/**
 * `hoglet queue`: an operator sees a parked event, mends the cause and puts it back in line; the
 * running server's worker then processes it. The CLI is the real one, in its own process, on the
 * server's database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptBoomDistinctIds, refuseBoomDistinctIds } from '../helpers/faults.js';
import { runHoglet } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function hoglet(...args: string[]): Promise<{ code: number | null; output: string }> {
  const run = runHoglet(['queue', ...args], { ...server.storage.env, LOG_LEVEL: 'warn' });
  const { code } = await run.exited;
  return { code, output: run.output() };
}

async function personOf(distinctId: string) {
  const res = await server.request(`/api/environments/${server.bootstrap.team.id}/persons/?distinct_id=${encodeURIComponent(distinctId)}`);
  return res.body.results[0] as { distinct_ids: string[] } | undefined;
}

describe('hoglet queue', () => {
  it('lists a parked event and puts it back in line once its cause is mended', async () => {
    const { db } = server.running.ctx.database;
    expect(await hoglet('status')).toEqual({ code: 0, output: 'the ingestion queue is empty\n' });

    // An $identify whose anonymous id the database refuses: identity events have no personless
    // form, so after its attempts it is parked.
    await refuseBoomDistinctIds(db);
    const res = await fetch(`${server.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: server.bootstrap.team.apiToken,
        event: '$identify',
        distinct_id: 'customer-7',
        properties: { $anon_distinct_id: 'visitor-boom' },
      }),
    });
    expect(res.status).toBe(200);
    await server.settle();

    expect(await hoglet('status')).toEqual({ code: 0, output: 'realtime  waiting=0  parked=1\n' });
    const parked = await hoglet('parked');
    expect(parked.code).toBe(0);
    expect(parked.output).toMatch(
      /^\d+ {2}project=\d+ {2}lane=realtime {2}event="\$identify" {2}distinct_id="customer-7" {2}uuid=[0-9a-f-]{36} {2}received=\S+ {2}attempts=3\n$/,
    );
    const queueId = parked.output.split(' ')[0]!;
    expect(await personOf('visitor-boom')).toBeUndefined();

    // Nothing else is touched: an id that is not parked is not counted.
    expect((await hoglet('retry', '--ids', String(Number(queueId) + 1000))).output).toBe(
      '0 parked events put back in the queue; the ingestion worker takes them in order\n',
    );
    const refused = await hoglet('retry', '--ids', `${queueId},x`);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('--ids takes comma-separated ids, got "x"');
    const empty = await hoglet('retry', '--ids', '');
    expect(empty.code).not.toBe(0);
    expect(empty.output).toContain('--ids needs at least one queue id');
    expect(await hoglet('status')).toEqual({ code: 0, output: 'realtime  waiting=0  parked=1\n' });

    await acceptBoomDistinctIds(db);
    expect(await hoglet('retry', '--ids', queueId)).toEqual({
      code: 0,
      output: '1 parked event put back in the queue; the ingestion worker takes them in order\n',
    });
    await server.settle();

    expect((await personOf('visitor-boom'))?.distinct_ids.sort()).toEqual(['customer-7', 'visitor-boom']);
    expect(await hoglet('status')).toEqual({ code: 0, output: 'the ingestion queue is empty\n' });
    expect(await hoglet('parked')).toEqual({ code: 0, output: 'no parked events\n' });
  }, 120_000);

  it('answers an unknown subcommand with its usage', async () => {
    const run = await hoglet('purge');
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('usage: hoglet queue status | hoglet queue parked [--limit N] | hoglet queue retry [--ids 1,2,…]');
  }, 60_000);
});
