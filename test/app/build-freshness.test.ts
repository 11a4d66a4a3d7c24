/**
 * scripts/run.mjs (what `npm start` runs) builds dist/ only when src/ or bench/ changed since the
 * last build: a changed or deleted source is rebuilt, an unchanged checkout starts at once. Run on
 * a small checkout of its own (the real scripts, a few sources, the real node_modules).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/process.js';

const exec = promisify(execFile);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function checkout(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-build-'));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.mkdirSync(path.join(root, 'scripts'));
  // build-web.mjs builds nothing in a checkout without web/ (test/web/web-build.test.ts tests it).
  for (const script of ['build.mjs', 'build-web.mjs', 'run.mjs'])
    fs.copyFileSync(path.join(REPO_ROOT, 'scripts', script), path.join(root, 'scripts', script));
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  fs.writeFileSync(path.join(root, 'package.json'), '{"type": "module"}\n');
  write(
    root,
    'src/cli/main.ts',
    "import { greeting } from '../greeting.js';\nconst name: string = process.argv.slice(2).join(' ');\nconsole.log(`${greeting} ${name} from ${process.argv[1]}`);\n",
  );
  write(root, 'src/greeting.ts', "export const greeting: string = 'hello';\n");
  write(root, 'src/extra.ts', 'export const extra = 1;\n');
  write(root, 'bench/run.ts', "console.log('bench');\n");
  return root;
}

function write(root: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}

/** Runs the compiled entry as `npm start` does; a marker left in dist/ tells whether it was rebuilt. */
async function run(root: string): Promise<{ stdout: string; rebuilt: boolean }> {
  const marker = path.join(root, 'dist', 'marker');
  const hadBuild = fs.existsSync(path.join(root, 'dist'));
  if (hadBuild) fs.writeFileSync(marker, '');
  const { stdout } = await exec(process.execPath, ['scripts/run.mjs', 'dist/src/cli/main.js', 'the', 'world'], { cwd: root });
  return { stdout, rebuilt: !hadBuild || !fs.existsSync(marker) };
}

describe('scripts/run.mjs', () => {
  it('builds when the sources changed since the last build, and only then', async () => {
    const root = checkout();
    const entry = path.join(root, 'dist/src/cli/main.js');
    expect(await run(root)).toEqual({ stdout: `hello the world from ${entry}\n`, rebuilt: true });
    expect(await run(root)).toEqual({ stdout: `hello the world from ${entry}\n`, rebuilt: false });

    // Touched, not changed: nothing to build.
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'src/greeting.ts'), later, later);
    expect((await run(root)).rebuilt).toBe(false);

    write(root, 'src/greeting.ts', "export const greeting: string = 'howdy';\n");
    expect(await run(root)).toEqual({ stdout: `howdy the world from ${entry}\n`, rebuilt: true });

    // A source deleted does not live on in dist/.
    expect(fs.existsSync(path.join(root, 'dist/src/extra.js'))).toBe(true);
    fs.rmSync(path.join(root, 'src/extra.ts'));
    expect((await run(root)).rebuilt).toBe(true);
    expect(fs.existsSync(path.join(root, 'dist/src/extra.js'))).toBe(false);

    // bench/ counts too, and a source added.
    write(root, 'bench/run.ts', "console.log('bench, changed');\n");
    expect((await run(root)).rebuilt).toBe(true);
    write(root, 'src/new.ts', 'export {};\n');
    expect((await run(root)).rebuilt).toBe(true);
    expect(fs.existsSync(path.join(root, 'dist/src/new.js'))).toBe(true);
    expect((await run(root)).rebuilt).toBe(false);
    // Nothing of a build is left beside dist/.
    expect(fs.readdirSync(root).sort()).toEqual(['bench', 'dist', 'node_modules', 'package.json', 'scripts', 'src']);
  }, 120_000);
});
