import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/process.js';

const run = promisify(execFile);

/** The node options of a `node <options> --import tsx …` command line. */
function nodeOptions(commandLine: string): string[] {
  const words = commandLine.trim().split(/\s+/);
  const node = words.indexOf('node');
  return words.slice(node + 1, words.indexOf('--import'));
}

function manifest(): { scripts: Record<string, string> } {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
}

describe('how the server is launched (README, "Memory")', () => {
  it('gives the server a larger young generation from every documented entry point', () => {
    const { scripts } = manifest();
    const start = nodeOptions(scripts.start!);
    expect(start).toContain('--max-semi-space-size=64');
    // `npm run hoglet`, `npm run worker` and `npm run bench` (whose worker figure is measured in its own process).
    for (const name of ['hoglet', 'worker', 'bench']) expect(nodeOptions(scripts[name]!), name).toEqual(start);
    const shebang = fs.readFileSync(path.join(REPO_ROOT, 'bin/hoglet.js'), 'utf8').split('\n')[0]!;
    expect(shebang.startsWith('#!/usr/bin/env -S node ')).toBe(true);
    expect(shebang.slice('#!/usr/bin/env -S node '.length).trim().split(/\s+/)).toEqual(start);
  });

  it('runs bin/hoglet.js as an executable with those options', async () => {
    const { stdout } = await run(path.join(REPO_ROOT, 'bin/hoglet.js'), ['help'], { cwd: REPO_ROOT });
    expect(stdout).toMatch(/^Usage: hoglet <command>/);
  });
});
