/**
 * The README's `npm start`, for real: npm, the shell it runs the script with, and the server. A
 * process manager signals the process it started, npm (systemd with KillMode=process, a container
 * whose command is `npm start`); a terminal's Ctrl-C signals the whole group. Either way the
 * server finishes the request in flight and its queue commit, and nothing is left holding the port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freshStorage } from '../helpers/backend.js';
import { REPO_ROOT } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

interface NpmStart {
  npm: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Whether any process of the group npm leads is alive (npm is started as a group leader). */
function groupAlive(npm: ChildProcess): boolean {
  try {
    process.kill(-npm.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

async function npmStart(env: Record<string, string>): Promise<NpmStart> {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  // Its own process group, as a shell gives a command, so that the test can signal it as a terminal does.
  const npm = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...storage.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  cleanups.push(async () => {
    if (groupAlive(npm)) process.kill(-npm.pid!, 'SIGKILL');
  });
  let text = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of waiters.splice(0)) w();
  };
  npm.stdout!.on('data', onData);
  npm.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    npm,
    output: () => text,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${text}`)), 90_000);
        const check = () => {
          const match = text.match(pattern);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          } else if (npm.exitCode !== null) {
            clearTimeout(timer);
            reject(new Error(`npm exited (${npm.exitCode}) before ${pattern}; output:\n${text}`));
          } else waiters.push(check);
        };
        check();
      }),
  };
}

/** A capture request whose body has only begun to arrive; `finish` sends the rest and gives the answer. */
async function captureInFlight(url: string, token: string): Promise<{ finish(): Promise<string> }> {
  const { port, hostname } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const body = JSON.stringify({ api_key: token, event: 'stopping', distinct_id: 'in-flight' });
  let response = '';
  socket.on('data', (d) => (response += d.toString()));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(
    `POST /capture/ HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
      `Connection: close\r\nExpect: 100-continue\r\n\r\n`,
  );
  socket.write(body.slice(0, 10));
  // The server has the request once its headers are read: node then answers "100 Continue".
  await waitFor(() => response.includes('\r\n\r\n'), { what: 'the server to read the request' });
  expect(response).toMatch(/^HTTP\/1.1 100 Continue\r\n\r\n$/);
  response = '';
  return {
    async finish() {
      socket.write(body.slice(10));
      await closed;
      return response;
    },
  };
}

/** Whether the port can be listened on (nothing holds it). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

describe('npm start under a process manager', () => {
  it('stops on SIGTERM to npm: the request in flight is answered, then nothing holds the port', async () => {
    const started = await npmStart({});
    const [, url] = await started.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/);
    const [, token] = await started.waitFor(/Project API key \(for SDKs\): +(phc_\w+)/);
    const inFlight = await captureInFlight(url!, token!);

    started.npm.kill('SIGTERM');
    await started.waitFor(/shutting down: no new connections/);
    const answer = await inFlight.finish();
    expect(answer).toMatch(/^HTTP\/1.1 200 /);
    expect(answer).toContain('{"status":1}');

    expect(await started.exited).toEqual({ code: 0, signal: null });
    expect(started.output()).toContain('shutdown complete');
    expect(groupAlive(started.npm)).toBe(false);
    expect(await portFree(Number(new URL(url!).port))).toBe(true);
  }, 180_000);

  it('stops on SIGINT to the whole group (Ctrl-C), with several server processes', async () => {
    const started = await npmStart({ HTTP_PROCESSES: '2' });
    const [, url, supervisor] = await started.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*"pid":(\d+)[^\n]*hoglet cluster ready/);
    const [, token] = await started.waitFor(/Project API key \(for SDKs\): +(phc_\w+)/);
    const inFlight = await captureInFlight(url!, token!);

    // As a terminal does: npm, the supervisor and its server processes all get it. npm passes its
    // own on to the supervisor too (sent here as well: the kernel merges two signals that arrive
    // together), which must not take that for a second, impatient Ctrl-C.
    process.kill(-started.npm.pid!, 'SIGINT');
    process.kill(Number(supervisor), 'SIGINT');
    await started.waitFor(/shutting down: no new connections/);
    const answer = await inFlight.finish();
    expect(answer).toMatch(/^HTTP\/1.1 200 /);
    expect(answer).toContain('{"status":1}');

    expect((await started.exited).code).toBe(0);
    expect(started.output()).not.toContain('second signal');
    expect(groupAlive(started.npm)).toBe(false);
    expect(await portFree(Number(new URL(url!).port))).toBe(true);
  }, 180_000);
});
