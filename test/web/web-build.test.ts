/**
 * scripts/build-web.mjs (run by `npm start` through scripts/run.mjs, and by the tests' global setup)
 * builds web/dist/ only when the app's sources changed: an unchanged checkout starts without
 * building. Run on a checkout of its own: the real web/ and scripts, the real node_modules.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/process.js';

const exec = promisify(execFile);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-web-build-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function copy(from: string) {
  fs.cpSync(path.join(REPO_ROOT, from), path.join(root, from), {
    recursive: true,
    filter: (source) => !source.startsWith(path.join(REPO_ROOT, 'web', 'dist')),
  });
}

/** `buildWebIfStale()` in the checkout; whether it built, and the page it left. */
async function buildIfStale(): Promise<{ built: boolean; html: string }> {
  const { stdout } = await exec(
    process.execPath,
    ['--input-type=module', '-e', "const m = await import('./scripts/build-web.mjs'); console.log(await m.buildWebIfStale());"],
    { cwd: root },
  );
  return { built: stdout.trim() === 'true', html: fs.readFileSync(path.join(root, 'web/dist/index.html'), 'utf8') };
}

describe('scripts/build-web.mjs', () => {
  it('builds the web app when its sources changed, and only then', async () => {
    for (const from of [
      'web',
      'scripts/build-web.mjs',
      'src/web-app/sections.ts',
      'src/auth/scopes.ts',
      'package-lock.json',
      'package.json',
    ])
      copy(from);
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));

    const first = await buildIfStale();
    expect(first.built).toBe(true);
    const entry = /src="\/app-assets\/(index-[\w-]+\.js)"/.exec(first.html)![1]!;
    expect(fs.existsSync(path.join(root, 'web/dist/app-assets', entry))).toBe(true);
    expect(fs.existsSync(path.join(root, 'web/dist/app-assets', `${entry}.gz`))).toBe(true);
    // Production React: the development build's warnings are not in it.
    expect(fs.readFileSync(path.join(root, 'web/dist/app-assets', entry), 'utf8')).not.toContain(
      'Each child in a list should have a unique',
    );

    expect((await buildIfStale()).built).toBe(false);
    // Touched, not changed.
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'web/src/theme.ts'), later, later);
    expect((await buildIfStale()).built).toBe(false);
    // Notes are not sources.
    fs.writeFileSync(path.join(root, 'web/NOTES.md'), 'a note\n');
    expect((await buildIfStale()).built).toBe(false);

    // A changed source is built, and the new page names the new script.
    fs.appendFileSync(path.join(root, 'web/src/theme.ts'), "export const changed = 'yes';\n");
    const second = await buildIfStale();
    expect(second.built).toBe(true);
    // The section list the server shares with the app counts too.
    fs.appendFileSync(path.join(root, 'src/web-app/sections.ts'), '// changed\n');
    expect((await buildIfStale()).built).toBe(true);
    expect((await buildIfStale()).built).toBe(false);
  });
});
