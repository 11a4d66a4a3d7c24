import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeOptionsOf } from '../../bench/node-options.js';
import { freshStorage } from '../helpers/backend.js';
import { REPO_ROOT, runHoglet, type HogletProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

function startScript(): string {
  return (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
}

/** A build of its own (scripts/build.mjs into a folder of the checkout), removed afterwards. */
async function build(): Promise<string> {
  const out = path.join('.tmp', `build-${randomUUID()}`);
  cleanups.push(() => fs.promises.rm(path.join(REPO_ROOT, out), { recursive: true, force: true }));
  await exec(process.execPath, ['scripts/build.mjs', out], { cwd: REPO_ROOT });
  return out;
}

async function get(url: string, key: string): Promise<any> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status, url).toBe(200);
  return response.json();
}

describe('the compiled server (npm start)', () => {
  it('runs what scripts/build.mjs writes: it serves, and its worker prepares a backlog on its own thread', async () => {
    // npm start runs the build's entry point (scripts/run.mjs builds it when the sources changed).
    expect(startScript()).toMatch(/\sdist\/src\/cli\/main\.js serve$/);
    const out = await build();
    const storage = await freshStorage();
    cleanups.push(() => storage.dispose());
    const launch = [...nodeOptionsOf(startScript()), path.join(out, 'src/cli/main.js')];
    const server: HogletProcess = runHoglet(['serve'], { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', ...storage.env }, launch);
    cleanups.push(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
    });
    const [, url] = await server.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/);
    const [, key] = await server.waitFor(/Authorization: Bearer (phx_[0-9A-Za-z]+)/);
    const [, token] = await server.waitFor(/Project API key \(for SDKs\): +(phc_\w+)/);

    // More events than one worker batch (1,000): the batch after the first is prepared on the
    // prepare thread, whose entry is the compiled prepare-thread.js.
    const batch = Array.from({ length: 2500 }, (_, i) => ({ event: 'compiled check', properties: { distinct_id: `visitor-${i}`, n: i } }));
    const captured = await fetch(`${url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, batch }),
    });
    expect(captured.status).toBe(200);
    await server.waitFor(/"preparedAhead":true[^\n]*ingestion batch processed/);

    const projects = await get(`${url}/api/projects/`, key!);
    const environment = projects.results[0].id as number;
    for (const n of [0, 1999, 2499]) {
      const found: any[] = await waitFor(
        async () => (await get(`${url}/api/environments/${environment}/events/?distinct_id=visitor-${n}`, key!)).results,
        {
          what: `visitor-${n}'s event to be stored`,
          until: (results) => results.length > 0,
        },
      );
      expect(found.map((e) => [e.event, e.properties.n])).toEqual([['compiled check', n]]);
    }
    expect(server.output()).not.toMatch(/prepare thread (unavailable|could not)/);

    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });
});
