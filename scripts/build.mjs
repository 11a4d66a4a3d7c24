/**
 * `npm run build`: the TypeScript of src/ and bench/ as JavaScript in dist/ (dist/src, dist/bench),
 * file for file, for `npm start`,
 * `npm run hoglet`, `npm run worker` and `npm run bench` to run
 * (scripts/run.mjs builds only when the sources changed since the last build: `buildIfStale`).
 * `node scripts/build.mjs <folder>` writes to another folder of the checkout (the tests' own
 * build): inside it, so the compiled files find node_modules as the sources do.
 *
 * Why not run the sources through tsx, as the tests and bin/hoglet.js do: tsx compiles with
 * esbuild's `keepNames`, which wraps every function a module creates, closures made per request
 * or per event included, in a call that defines its name (measured: /decide's own work 10%
 * slower, the worker about 8%). This is the same esbuild without it. It only strips types, in a
 * fraction of a second: `npm run typecheck` checks them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
/** Written last into a finished build: what it was built from (`sourceDigest`). */
const STAMP = '.build-stamp';
/**
 * ES-module packages bundled each into one file of the build, dist/node_modules/<name>/, where the
 * compiled files find them before the checkout's node_modules (the sources, run through tsx, use
 * the installed package itself). Node loads an ES module graph file by file: kysely's 260-odd
 * modules took 210-245 ms of every start, its bundle 22-42 ms.
 */
const VENDORED = ['kysely'];

/** The .ts files of `folder` (relative to the checkout), not the .d.ts. */
function typescriptFiles(folder, found = []) {
  for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) typescriptFiles(file, found);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(file);
  }
  return found;
}

function sources() {
  return [...typescriptFiles('src'), ...typescriptFiles('bench')].sort();
}

/**
 * What a build is made from: every source's path and content, this script, and the versions of
 * esbuild and of the packages bundled in. A file changed, added or deleted changes it; a file only
 * touched does not. Reading the ~2 MB of sources takes tens of milliseconds, far less than loading
 * the server.
 */
export function sourceDigest() {
  const hash = createHash('sha256');
  // Their manifests (kysely's exports map hides its package.json from require).
  for (const name of ['esbuild', ...VENDORED]) hash.update(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json')));
  hash.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  for (const file of sources()) {
    hash.update(`\0${file}\0`);
    hash.update(fs.readFileSync(path.join(root, file)));
  }
  return hash.digest('hex');
}

/**
 * Builds into `out` (a folder of the checkout). The build is written next to it and put in its
 * place when complete, so a process starting meanwhile finds the old build or the new one whole,
 * never half of one, and a file deleted from src/ does not live on in dist/.
 */
export async function build(out = path.join(root, 'dist')) {
  const digest = sourceDigest();
  const esbuild = await import('esbuild');
  const fresh = `${out}.building-${process.pid}`;
  fs.rmSync(fresh, { recursive: true, force: true });
  try {
    await esbuild.build({
      entryPoints: sources().map((file) => path.join(root, file)),
      outdir: fresh,
      outbase: root,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      bundle: false,
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    for (const name of VENDORED) {
      const folder = path.join(fresh, 'node_modules', name);
      await esbuild.build({
        stdin: { contents: `export * from '${name}';`, resolveDir: root },
        outfile: path.join(folder, 'index.js'),
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        logLevel: 'warning',
      });
      fs.writeFileSync(path.join(folder, 'package.json'), `${JSON.stringify({ name, type: 'module', exports: './index.js' })}\n`);
    }
    fs.writeFileSync(path.join(fresh, STAMP), `${digest}\n`);
    install(fresh, out);
  } finally {
    fs.rmSync(fresh, { recursive: true, force: true });
    // esbuild's service process would otherwise stay, a child of the server scripts/run.mjs starts.
    await esbuild.stop();
  }
}

/** Puts a finished build in place of `out`, also when another process is doing the same. */
function install(fresh, out) {
  for (let attempt = 0; ; attempt++) {
    try {
      fs.renameSync(fresh, out);
      return;
    } catch (error) {
      if ((error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') || attempt >= 10) throw error;
    }
    const old = `${out}.old-${process.pid}-${attempt}`;
    try {
      fs.renameSync(out, old);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    fs.rmSync(old, { recursive: true, force: true });
  }
}

/** Whether dist/ was built from the sources as they are now. */
export function isUpToDate(out = path.join(root, 'dist')) {
  let stamp;
  try {
    stamp = fs.readFileSync(path.join(out, STAMP), 'utf8').trim();
  } catch {
    return false;
  }
  return stamp === sourceDigest();
}

/** Builds dist/ unless it is up to date; true when it built. */
export async function buildIfStale(out = path.join(root, 'dist')) {
  if (isUpToDate(out)) return false;
  await build(out);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await build(path.resolve(root, process.argv[2] ?? 'dist'));
}
