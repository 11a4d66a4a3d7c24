import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { environmentOf, nodeOptionsOf } from '../../bench/node-options.js';
import { REPO_ROOT } from '../helpers/process.js';

const run = promisify(execFile);

function scripts(): Record<string, string> {
  return (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
}

describe('how the server is launched (docs/operations.md, "Memory")', () => {
  it("grows the server's heap in smaller steps from every npm script that runs it", () => {
    const all = scripts();
    const start = nodeOptionsOf(all.start!);
    expect(start).toEqual(expect.arrayContaining(['--heap-growing-percent=50', '--max-semi-space-size=8']));
    // `npm run hoglet`, `npm run worker` and `npm run bench` (whose worker figures are measured in its own process).
    for (const name of ['hoglet', 'worker', 'bench']) expect(nodeOptionsOf(all[name]!), name).toEqual(start);
  });

  it('limits glibc to two malloc arenas in every npm script that runs the server, through exec', () => {
    const all = scripts();
    for (const name of ['start', 'hoglet', 'worker', 'bench']) {
      expect(environmentOf(all[name]!), name).toEqual({ MALLOC_ARENA_MAX: '2' });
      expect(all[name], name).toMatch(/^MALLOC_ARENA_MAX=2 exec node /);
    }
    expect(environmentOf('A=1 B_2=x=y exec node --trace-gc main.js')).toEqual({ A: '1', B_2: 'x=y' });
    expect(environmentOf('node main.js')).toEqual({});
  });

  it('reads the node options of a command line, and refuses one it cannot read', () => {
    expect(nodeOptionsOf('node --max-semi-space-size=64 dist/src/cli/main.js serve')).toEqual(['--max-semi-space-size=64']);
    // A loader is how the code is loaded, not a setting of the server's.
    expect(nodeOptionsOf('node --max-semi-space-size=64 --trace-gc --import tsx src/cli/main.ts serve')).toEqual([
      '--max-semi-space-size=64',
      '--trace-gc',
    ]);
    expect(nodeOptionsOf('NODE_ENV=production node dist/src/cli/main.js')).toEqual([]);
    expect(() => nodeOptionsOf('node --import=tsx src/cli/main.ts')).toThrow(/command line/);
    expect(() => nodeOptionsOf('node --max-semi-space-size=64')).toThrow(/entry point/);
    expect(() => nodeOptionsOf('tsx src/cli/main.ts serve')).toThrow(/command line/);
  });

  it('runs bin/hoglet.js as an executable wherever node is on the PATH', async () => {
    const shebang = fs.readFileSync(path.join(REPO_ROOT, 'bin/hoglet.js'), 'utf8').split('\n')[0];
    expect(shebang).toBe('#!/usr/bin/env node');
    const { stdout } = await run(path.join(REPO_ROOT, 'bin/hoglet.js'), ['help'], { cwd: REPO_ROOT });
    expect(stdout).toMatch(/^Usage: hoglet <command>/);
  });
});
