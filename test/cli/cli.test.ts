import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { freshStorage, type TestStorage } from '../helpers/backend.js';
import { runHoglet, type HogletProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function storage(): Promise<TestStorage> {
  const s = await freshStorage();
  cleanups.push(() => s.dispose());
  return s;
}

function track(p: HogletProcess): HogletProcess {
  cleanups.push(async () => {
    if (p.child.exitCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  });
  return p;
}

async function serve(env: Record<string, string>) {
  const p = track(runHoglet(['serve'], { PORT: '0', HOST: '127.0.0.1', ...env }));
  const [, url] = await p.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/);
  return { p, url: url! };
}

describe('hoglet serve', () => {
  it('prints a working curl on first start, and nothing secret on the next', async () => {
    const s = await storage();
    const { p } = await serve(s.env);
    const [curlLine] = await p.waitFor(/curl -H "Authorization: Bearer phx_[0-9A-Za-z]+" http:\/\/\S+\/api\/projects\//);
    const { stdout } = await exec('bash', ['-c', curlLine!]);
    const body = JSON.parse(stdout);
    expect(body.count).toBe(1);
    expect(body.results[0].name).toBe('Default project');
    expect(body.results[0].api_token).toMatch(/^phc_/);
    expect(p.output()).toContain(`Project API key (for SDKs):  ${body.results[0].api_token}`);

    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(p.output()).toContain('shutdown complete');

    const again = await serve(s.env);
    expect(again.p.output()).not.toContain('phx_');
    again.p.child.kill('SIGINT');
    expect((await again.p.exited).code).toBe(0);
  });

  it('bootstraps exactly once when several processes start together on one database', async () => {
    const s = await storage();
    const started = await Promise.all([serve(s.env), serve(s.env), serve(s.env)]);
    const printed = started.filter(({ p }) => /Personal API key \(all scopes/.test(p.output()));
    expect(printed).toHaveLength(1);
    const key = printed[0]!.p.output().match(/Bearer (phx_\w+)/)![1];
    for (const { url } of started) {
      const res = await fetch(`${url}/api/projects/`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await res.json()) as any).count).toBe(1);
    }
  });

  it('takes the first key from HOGLET_BOOTSTRAP_PERSONAL_API_KEY', async () => {
    const s = await storage();
    const fixed = 'phx_automation0123456789abcdefghijklmnopqrstuv';
    const { url } = await serve({ ...s.env, HOGLET_BOOTSTRAP_PERSONAL_API_KEY: fixed });
    const res = await fetch(`${url}/api/users/@me/`, { headers: { authorization: `Bearer ${fixed}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).email).toBe('admin@hoglet.local');
  });

  it('finishes a request in flight when told to stop', async () => {
    const s = await storage();
    const fixed = 'phx_inflight0123456789abcdefghijklmnopqrstuvwx';
    const { p, url } = await serve({ ...s.env, HOGLET_BOOTSTRAP_PERSONAL_API_KEY: fixed });
    // Open a request whose body arrives slowly, stop the server meanwhile, then finish the body.
    const { port, hostname } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    const body = JSON.stringify({ personal_api_key: fixed });
    let response = '';
    socket.on('data', (d) => (response += d.toString()));
    // `Expect: 100-continue`: node answers "100 Continue" once it has read the request's head, the
    // proof that the request is in the server's hands before it is told to stop.
    socket.write(
      `PUT /api/projects/ HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
        `Connection: close\r\nExpect: 100-continue\r\n\r\n`,
    );
    socket.write(body.slice(0, 5));
    await waitFor(() => response.includes('\r\n\r\n'), { what: 'the server to read the request' });
    expect(response).toMatch(/^HTTP\/1.1 100 Continue\r\n\r\n$/);
    response = '';
    p.child.kill('SIGTERM');
    await p.waitFor(/shutting down/);
    socket.write(body.slice(5));
    await new Promise((r) => socket.once('close', r));
    expect(response).toMatch(/^HTTP\/1.1 405/);
    expect((await p.exited).code).toBe(0);
  });

  it('exits non-zero with a clear message when the port is taken', async () => {
    const s = await storage();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => blocker.close(r)));
    const port = (blocker.address() as net.AddressInfo).port;
    const p = track(runHoglet(['serve'], { ...s.env, PORT: String(port), HOST: '127.0.0.1' }));
    const { code } = await p.exited;
    expect(code).toBe(1);
    expect(p.output()).toContain(`port ${port} on 127.0.0.1 is already in use`);
  });

  it('exits non-zero with a clear message when the database cannot be opened', async () => {
    const s = await storage();
    const notADir = path.join(s.dataDir, 'a-file');
    fs.writeFileSync(notADir, 'x');
    const p = track(runHoglet(['serve'], { DATA_DIR: notADir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1' }));
    expect((await p.exited).code).toBe(1);
    expect(p.output()).toContain('cannot open the SQLite database');

    const pg = track(runHoglet(['serve'], { ...s.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0', HOST: '127.0.0.1' }));
    expect((await pg.exited).code).toBe(1);
    expect(pg.output()).toContain('cannot connect to PostgreSQL');
  });
});

describe('hoglet admin commands', () => {
  it('creates keys with chosen scopes and projects, and lists projects', async () => {
    const s = await storage();
    const fixed = 'phx_cli0123456789abcdefghijklmnopqrstuvwxyzABC';
    const { p, url } = await serve({ ...s.env, HOGLET_BOOTSTRAP_PERSONAL_API_KEY: fixed });

    const projects = track(runHoglet(['projects', 'list'], s.env));
    expect((await projects.exited).code).toBe(0);
    const [, projectId, token] = projects.output().match(/^(\d+)\s+Default project\s+(phc_\w+)$/m)!;

    const created = track(runHoglet(['keys', 'create', '--scopes', 'project:read', '--projects', projectId!, '--label', 'ci'], s.env));
    expect((await created.exited).code).toBe(0);
    const key = created.output().match(/^(phx_\w+)$/m)![1]!;

    const ok = await fetch(`${url}/api/projects/${projectId}/`, { headers: { authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).api_token).toBe(token);
    const noScope = await fetch(`${url}/api/users/@me/`, { headers: { authorization: `Bearer ${key}` } });
    expect(noScope.status).toBe(403);
    expect(((await noScope.json()) as any).detail).toBe("API key missing required scope 'user:read'");

    const bad = track(runHoglet(['keys', 'create', '--scopes', 'everything:read'], s.env));
    expect((await bad.exited).code).toBe(1);
    expect(bad.output()).toContain('Invalid scope: everything:read');

    const listed = track(runHoglet(['keys', 'list'], s.env));
    expect((await listed.exited).code).toBe(0);
    expect(listed.output()).toContain('ci  scopes=project:read');
    expect(listed.output()).not.toContain(key);
    p.child.kill('SIGTERM');
    await p.exited;
  });

  it('lists keys with their ids and revokes one by id; it stops working at once', async () => {
    const s = await storage();
    const fixed = 'phx_revoke0123456789abcdefghijklmnopqrstuvwxyzA';
    const { url } = await serve({ ...s.env, HOGLET_BOOTSTRAP_PERSONAL_API_KEY: fixed });
    const get = (key: string, path = '/api/projects/') => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });

    const created = track(runHoglet(['keys', 'create', '--scopes', 'project:read', '--label', 'doomed'], s.env));
    expect((await created.exited).code).toBe(0);
    const key = created.output().match(/^(phx_\w+)$/m)![1]!;
    expect((await get(key)).status).toBe(200);

    const listed = track(runHoglet(['keys', 'list'], s.env));
    expect((await listed.exited).code).toBe(0);
    const id = listed.output().match(/^(\S+) {2}phx_\.\.\.\w{4} {2}doomed {2}scopes=project:read {2}created=/m)![1]!;
    const viaApi = (await (await get(fixed, '/api/personal_api_keys/')).json()) as Array<{ id: string; label: string }>;
    expect(viaApi.find((k) => k.label === 'doomed')!.id).toBe(id);

    const refusals: Array<[string[], string]> = [
      [['keys', 'revoke'], 'keys revoke needs --id'],
      [
        ['keys', 'revoke', '--id', 'no-such-key'],
        'admin@hoglet.local has no personal API key with id no-such-key; `hoglet keys list` shows the ids',
      ],
      [['keys', 'create', '--scopes', '*', '--label', 'x'.repeat(41)], '--label: Ensure this field has no more than 40 characters.'],
    ];
    for (const [args, message] of refusals) {
      const refused = track(runHoglet(args, s.env));
      expect((await refused.exited).code, args.join(' ')).toBe(1);
      expect(refused.output()).toContain(message);
    }
    expect((await get(key)).status).toBe(200);

    const revoked = track(runHoglet(['keys', 'revoke', '--id', id], s.env));
    expect((await revoked.exited).code).toBe(0);
    expect(revoked.output()).toContain(
      `Revoked personal API key ${id} (${key.slice(0, 4)}...${key.slice(-4)}, "doomed") of admin@hoglet.local`,
    );
    expect((await get(key)).status).toBe(401);
    expect((await get(fixed)).status).toBe(200);
    const again = track(runHoglet(['keys', 'list'], s.env));
    expect((await again.exited).code).toBe(0);
    expect(again.output()).not.toContain(id);
  }, 120_000);
});
