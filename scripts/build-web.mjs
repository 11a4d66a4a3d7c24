/**
 * `npm run build` (with scripts/build.mjs): the web app (web/) built by Vite into web/dist/, which
 * Hoglet serves at `/` (src/web-app/). scripts/run.mjs builds it before `npm start` only when its
 * sources changed since the last build (`buildWebIfStale`), as it does dist/; the tests build it
 * once per run the same way (test/web/global-setup.ts). `node scripts/build-web.mjs` builds it
 * whatever its stamp says.
 *
 * Vite and the app's libraries are dependencies, not devDependencies: the build runs at start, so
 * an install without dev dependencies (`npm ci --omit=dev`) must still be able to make it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = fileURLToPath(new URL('../', import.meta.url));
export const WEB_DIST = path.join(root, 'web', 'dist');
const STAMP = '.build-stamp';
/**
 * What the app is built from besides web/'s own files: the server's modules it imports (the
 * section list, the API key scopes, PostHog's date grammar; dependency-free, the only ones
 * eslint.config.js lets web/ import), and the lock file (a library's version is part of the build).
 */
export const ALSO = [
  'src/web-app/sections.ts',
  'src/auth/scopes.ts',
  'src/posthog/date-grammar.ts',
  'src/posthog/trends-displays.ts',
  'package-lock.json',
];

/** web/'s files (relative to the checkout), without its build output and its notes. */
function webFiles(folder = 'web', found = []) {
  for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (file !== path.join('web', 'dist') && !entry.name.startsWith('dist.') && entry.name !== 'node_modules') webFiles(file, found);
    } else if (!entry.name.endsWith('.md')) found.push(file);
  }
  return found;
}

/** A digest of everything the build reads: a file changed, added or deleted changes it (touching one does not). */
export function webSourceDigest() {
  const hash = createHash('sha256');
  hash.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  for (const file of [...webFiles().sort(), ...ALSO]) {
    hash.update(`\0${file}\0`);
    hash.update(fs.readFileSync(path.join(root, file)));
  }
  return hash.digest('hex');
}

export function isWebUpToDate() {
  try {
    return fs.readFileSync(path.join(WEB_DIST, STAMP), 'utf8').trim() === webSourceDigest();
  } catch {
    return false;
  }
}

/**
 * A gzip twin of each script and stylesheet, which the server sends to browsers that take gzip (all
 * do): the app's JavaScript is a third of its size on the wire, compressed once at build time.
 */
function compressAssets(folder) {
  for (const name of fs.readdirSync(folder)) {
    if (!/\.(?:js|css|svg)$/.test(name)) continue;
    const file = path.join(folder, name);
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
  }
}

/**
 * Builds web/dist/ next to itself and puts it in place when complete (as scripts/build.mjs does
 * dist/): a server starting meanwhile serves the old app or the new one, never half of one.
 */
export async function buildWeb() {
  const digest = webSourceDigest();
  const { build } = await import('vite');
  const fresh = `${WEB_DIST}.building-${process.pid}`;
  fs.rmSync(fresh, { recursive: true, force: true });
  // Always the production build (React's production code), also from vitest, which sets NODE_ENV=test.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: path.join(root, 'web', 'vite.config.ts'),
      mode: 'production',
      build: { outDir: fresh, emptyOutDir: true },
      logLevel: 'warn',
    });
    compressAssets(path.join(fresh, 'app-assets'));
    fs.writeFileSync(path.join(fresh, STAMP), `${digest}\n`);
    for (let attempt = 0; ; attempt++) {
      try {
        fs.renameSync(fresh, WEB_DIST);
        return;
      } catch (error) {
        if ((error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') || attempt >= 10) throw error;
      }
      const old = `${WEB_DIST}.old-${process.pid}-${attempt}`;
      try {
        fs.renameSync(WEB_DIST, old);
      } catch (error) {
        if (error.code !== 'ENOENT') throw error;
      }
      fs.rmSync(old, { recursive: true, force: true });
    }
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    fs.rmSync(fresh, { recursive: true, force: true });
  }
}

/** Builds web/dist/ unless it is up to date (or the checkout has no web app); true when it built. */
export async function buildWebIfStale() {
  if (!fs.existsSync(path.join(root, 'web', 'index.html')) || isWebUpToDate()) return false;
  await buildWeb();
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWeb();
}
