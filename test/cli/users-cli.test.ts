/**
 * `hoglet users create` and `hoglet users set-password` in a child process against a real server's
 * database: the password comes from standard input (a pipe: its first line), never from argv, and
 * works for `POST /api/login/` at once; set-password ends the user's sessions. The terminal path
 * (asked twice, no echo) is driven through a stand-in TTY stream.
 */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPassword } from '../../src/cli/read-secret.js';
import { REPO_ROOT } from '../helpers/process.js';
import { useTestServer } from '../helpers/server.js';
import { login, signIn } from '../helpers/sessions.js';

const server = useTestServer();

function hoglet(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...server.storage.env, LOG_LEVEL: 'warn' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('hoglet users', () => {
  it('creates a user whose password, read from a pipe, signs in', async () => {
    const run = await hoglet(
      ['users', 'create', '--email', 'cli-made@example.com', '--first-name', 'Cli', '--level', 'admin'],
      'piped password 1\nignored\n',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Created user cli-made@example\.com \([0-9a-f-]{36}\), admin of organization /);
    expect(run.stdout + run.stderr).not.toContain('piped password 1');
    const client = await signIn(server, 'cli-made@example.com', 'piped password 1');
    const me = (await client.request('/api/users/@me/')).body;
    expect(me).toMatchObject({
      first_name: 'Cli',
      has_password: true,
      organization: { id: server.bootstrap.organization.id, membership_level: 8 },
    });
  }, 60_000);

  it('refuses a short password, a taken e-mail and a missing --email, creating nothing', async () => {
    const short = await hoglet(['users', 'create', '--email', 'short@example.com'], 'short\n');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('This password is too short. It must contain at least 8 characters.');
    const taken = await hoglet(['users', 'create', '--email', server.bootstrap.user.email], 'long enough password\n');
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(`there is already a user with e-mail ${server.bootstrap.user.email}`);
    const none = await hoglet(['users', 'create'], 'long enough password\n');
    expect(none.code).toBe(2);
    expect((await login(server, 'short@example.com', 'short')).status).toBe(400);
  }, 60_000);

  it("sets a user's password from standard input and ends the user's sessions", async () => {
    const made = await hoglet(['users', 'create', '--email', 'cli-reset@example.com'], 'first password 1\n');
    expect(made.code, made.stderr).toBe(0);
    const client = await signIn(server, 'cli-reset@example.com', 'first password 1');
    const run = await hoglet(['users', 'set-password', '--email', 'cli-reset@example.com'], 'second password 2\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Set the password of cli-reset@example.com; 1 signed-in session(s) ended.\n');
    expect((await client.request('/api/users/@me/')).status).toBe(401);
    expect((await login(server, 'cli-reset@example.com', 'first password 1')).status).toBe(400);
    expect((await login(server, 'cli-reset@example.com', 'second password 2')).status).toBe(200);
    const unknown = await hoglet(['users', 'set-password', '--email', 'nobody@example.com'], 'whatever password\n');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no user with e-mail nobody@example.com');
    const list = await hoglet(['users', 'list'], '');
    expect(list.stdout).toMatch(/cli-reset@example\.com {2}.* {2}password=set {2}last_login=\d{4}-/);
    expect(list.stdout).not.toContain('scrypt$');
  }, 60_000);
});

describe('reading a password on a terminal', () => {
  function fakeTty() {
    const input = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode(mode: boolean): void; raw: boolean[] };
    input.isTTY = true;
    input.raw = [];
    input.setRawMode = (mode: boolean) => void input.raw.push(mode);
    const output = new PassThrough();
    let shown = '';
    output.on('data', (c: Buffer) => (shown += c.toString()));
    return { input, output, shown: () => shown };
  }

  it('asks twice, echoes nothing, and honours Backspace', async () => {
    const tty = fakeTty();
    const read = readPassword(tty.input, tty.output);
    tty.input.write('secret passX\u007fword\r');
    await new Promise((resolve) => setImmediate(resolve));
    tty.input.write('secret password\r');
    expect(await read).toBe('secret password');
    expect(tty.shown()).toBe('Password: \nPassword (again): \n');
    expect(tty.input.raw).toEqual([true, false, true, false]);
  });

  it('refuses two different entries', async () => {
    const tty = fakeTty();
    const read = readPassword(tty.input, tty.output);
    tty.input.write('one password\r');
    await new Promise((resolve) => setImmediate(resolve));
    tty.input.write('another one\r');
    await expect(read).rejects.toThrow('the two passwords differ; nothing was changed');
  });
});
