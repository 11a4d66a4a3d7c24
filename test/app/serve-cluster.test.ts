/**
 * `HTTP_PROCESSES=2 hoglet serve`: a supervisor and two server processes on one port, against the
 * test backend. Every request below opens its own connection, so the supervisor hands them to
 * both processes in turn.
 */
import fs from 'node:fs';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freshStorage, type TestStorage } from '../helpers/backend.js';
import { runHoglet, type HogletProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';
import { rawRequest } from '../helpers/raw-request.js';

const KEY = 'phx_cluster0123456789abcdefghijklmnopqrstuvwxyzA';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

interface Answer {
  status: number;
  body: any;
}

/** One request on a connection of its own (no keep-alive agent), unless an agent is given. */
async function request(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  agent: http.Agent | false = false,
): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const answer = await rawRequest(`${url}${path}`, {
    method,
    agent,
    headers: { ...(text ? { 'content-type': 'application/json' } : {}), ...headers },
    body: text,
  });
  return { status: answer.status, body: answer.text ? JSON.parse(answer.text) : undefined };
}

const api = (url: string, method: string, path: string, body?: unknown) =>
  request(url, method, path, body, { authorization: `Bearer ${KEY}` });

function childrenOf(pid: number): number[] {
  const text = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

async function startCluster(env: Record<string, string> = {}): Promise<{ p: HogletProcess; url: string; storage: TestStorage }> {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  const p = runHoglet(['serve'], {
    ...storage.env,
    PORT: '0',
    HOST: '127.0.0.1',
    HTTP_PROCESSES: '2',
    HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
    ...env,
  });
  cleanups.push(async () => {
    if (p.child.exitCode !== null) return;
    const children = childrenOf(p.child.pid!);
    p.child.kill('SIGKILL');
    for (const child of children) process.kill(child, 'SIGKILL');
    await p.exited;
  });
  const [, url] = await p.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet cluster ready/, 60_000);
  return { p, url: url!, storage };
}

describe('HTTP_PROCESSES=2', () => {
  it('serves from two processes that share data, caches and the ingestion worker, and stops them all', async () => {
    const { p, url } = await startCluster();
    const servers = childrenOf(p.child.pid!);
    expect(servers).toHaveLength(2);
    // Migrations and the first-start bootstrap ran once, in the first process.
    expect(p.output().match(/Project API key \(for SDKs\)/g)).toHaveLength(1);
    // Each server process logs its own line (the lines of separate processes may reach the pipe
    // in any order, so the second may come after the supervisor's).
    await p.waitFor(/hoglet listening[\s\S]*hoglet listening/);
    expect(p.output().match(/hoglet listening/g)).toHaveLength(2);

    const projects = await api(url, 'GET', '/api/projects/');
    expect(projects.status).toBe(200);
    const { id: projectId, api_token: token } = projects.body.results[0];

    // Events captured through both processes are processed by the one ingestion worker.
    const captures = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(url, 'POST', '/capture/', { api_key: token, event: 'clustered', distinct_id: `user-${i}`, properties: { n: i } }),
      ),
    );
    expect(captures.map((c) => c.status)).toEqual(Array(20).fill(200));
    const events = await waitFor(() => api(url, 'GET', `/api/environments/${projectId}/events/?event=clustered&limit=100`), {
      what: 'the 20 events to be stored',
      until: (res) => res.body?.results?.length === 20,
    });
    expect(events.body.results.map((e: any) => e.properties.n).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );

    // Flag definitions cached in both processes follow an edit made through either.
    const decide = () => request(url, 'POST', '/decide/?v=3', { api_key: token, distinct_id: 'someone' });
    const everyAnswer = async () => (await Promise.all(Array.from({ length: 8 }, decide))).map((a) => a.body.featureFlags['cluster-flag']);
    expect(await everyAnswer()).toEqual(Array(8).fill(undefined)); // both caches now hold "no flags"
    const created = await api(url, 'POST', `/api/projects/${projectId}/feature_flags/`, {
      key: 'cluster-flag',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    expect(created.status).toBe(201);
    expect(
      await waitFor(everyAnswer, { what: 'both processes to serve the new flag', until: (values) => values.every((v) => v === true) }),
    ).toEqual(Array(8).fill(true));

    // A server process that dies is replaced; the others go on serving meanwhile.
    process.kill(servers[1]!, 'SIGKILL');
    await p.waitFor(/server process died; starting another/);
    expect((await request(url, 'POST', '/capture/', { api_key: token, event: 'after-crash', distinct_id: 'x' })).status).toBe(200);
    const replaced = await waitFor(() => childrenOf(p.child.pid!), {
      what: 'the dead server process to be replaced and listening (children)',
      until: (pids) => pids.length === 2 && !pids.includes(servers[1]!) && p.output().match(/hoglet listening/g)!.length === 3,
    });
    expect(replaced).toContain(servers[0]);
    expect(replaced).toHaveLength(2);
    expect(await everyAnswer()).toEqual(Array(8).fill(true));

    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(p.output()).toContain('shutdown complete');
    for (const pid of replaced)
      expect(fs.existsSync(`/proc/${pid}`) && !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z')).toBe(false);
  }, 120_000);

  it("wakes the first process's ingestion worker when another process commits events", async () => {
    // An idle worker would look for other processes' events only once a minute: every event below
    // is processed at once only if the commit of the process that took it woke the worker.
    const { url } = await startCluster({ INGESTION_POLL_MS: '60000' });
    const projects = await api(url, 'GET', '/api/projects/');
    const { id: projectId, api_token: token } = projects.body.results[0];
    // The events are read over one kept-alive connection, so that only the captures open new
    // connections: the supervisor hands those to the two processes in turn, and consecutive
    // captures alternate between them. Each capture is sent alone and must be processed (long
    // before the worker's next poll) before the next is sent.
    const reads = new http.Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => reads.destroy());
    const read = () =>
      request(
        url,
        'GET',
        `/api/environments/${projectId}/events/?event=woken&limit=100`,
        undefined,
        { authorization: `Bearer ${KEY}` },
        reads,
      );
    await read();
    for (let i = 0; i < 4; i++) {
      expect((await request(url, 'POST', '/capture/', { api_key: token, event: 'woken', distinct_id: `user-${i}` })).status).toBe(200);
      // Bounded well inside the worker's 60 s poll: only the wake-up can process it in time.
      const events = await waitFor(read, {
        what: `event ${i + 1} to be processed`,
        until: (res) => res.body?.results?.length === i + 1,
        timeoutMs: 20_000,
      });
      expect(events.body.results).toHaveLength(i + 1);
    }
  }, 180_000);

  it('fails to start, with the reason, when the port is taken', async () => {
    const { url, storage } = await startCluster();
    const port = new URL(url).port;
    const second = runHoglet(['serve'], { ...storage.env, PORT: port, HOST: '127.0.0.1', HTTP_PROCESSES: '2' });
    cleanups.push(async () => {
      if (second.child.exitCode === null) second.child.kill('SIGKILL');
      await second.exited;
    });
    // The supervisor's cluster shares its own listening socket between its processes, but another
    // program's port stays another program's.
    expect((await second.exited).code).toBe(1);
    expect(second.output()).toContain('is already in use');
  }, 120_000);
});
