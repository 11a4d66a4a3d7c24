import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface Child {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts a TypeScript entry point as a child process and waits for the URL it prints. */
export async function spawnServer(args: string[], env: Record<string, string>, pattern: RegExp): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      text += d.toString();
      const m = text.match(pattern);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${text}`)));
  });
  return {
    url,
    child,
    output: () => text,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Drives one URL with autocannon; returns mean requests/s and latency percentiles in ms. */
export async function load(options: {
  url: string;
  method?: 'POST' | 'GET';
  body?: string | Buffer;
  headers?: Record<string, string>;
  connections?: number;
  seconds?: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'POST',
    body: options.body,
    headers: options.headers ?? { 'content-type': 'application/json' },
    connections: options.connections ?? 50,
    duration: options.seconds ?? 5,
    pipelining: 1,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** One line per figure: the measurement, its baseline from the same run, and the ratio. */
export function report(name: string, value: number, unit: string, baseline: { name: string; value: number; unit: string }, target?: string) {
  const ratio = value / baseline.value;
  process.stdout.write(
    `${name.padEnd(44)} ${fmt(value).padStart(10)} ${unit.padEnd(10)} | ${baseline.name} ${fmt(baseline.value)} ${baseline.unit} | ratio ${ratio.toFixed(2)}${target ? ` | target ${target}` : ''}\n`,
  );
}
