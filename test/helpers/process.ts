import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface HogletProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of the pattern in stdout+stderr, or rejects after the timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `hoglet <args>` as a real child process, as a user would from the repository: the
 * TypeScript sources through tsx, or `launch` (node options and a compiled entry point).
 */
export function runHoglet(
  args: string[],
  env: Record<string, string>,
  launch: string[] = ['--import', 'tsx', 'src/cli/main.ts'],
): HogletProcess {
  const child = spawn(process.execPath, [...launch, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      for (const w of waiters.splice(0)) w();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${text}`)), timeoutMs);
        const check = () => {
          const match = text.match(pattern);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          } else if (child.exitCode !== null) {
            clearTimeout(timer);
            reject(new Error(`process exited (${child.exitCode}) before ${pattern}; output:\n${text}`));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}
