/**
 * `npm run build`: the TypeScript of src/ and bench/ as JavaScript in dist/ (dist/src, dist/bench),
 * file for file, for `npm start`, `npm run hoglet`, `npm run worker` and `npm run bench` to run.
 * `node scripts/build.mjs <folder>` writes to another folder of the checkout (the tests' own
 * build): inside it, so the compiled files find node_modules as the sources do.
 *
 * Why not run the sources through tsx, as the tests and bin/hoglet.js do: tsx compiles with
 * esbuild's `keepNames`, which wraps every function a module creates, closures made per request
 * or per event included, in a call that defines its name (measured: /decide's own work 10%
 * slower, the worker about 8%). This is the same esbuild without it. It only strips types, in a
 * fraction of a second: `npm run typecheck` checks them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = path.resolve(root, process.argv[2] ?? 'dist');
const sources = ['src', 'bench'].flatMap((folder) =>
  fs
    .readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.join(root, folder, file)),
);

// A file deleted from src/ must not live on in dist/.
fs.rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: sources,
  outdir: out,
  outbase: root,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  bundle: false,
  sourcemap: 'linked',
  logLevel: 'warning',
});
