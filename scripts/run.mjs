/**
 * `node scripts/run.mjs dist/<entry>.js [args…]`: what `npm start`, `npm run hoglet`,
 * `npm run worker` and `npm run bench` run. Builds dist/ when src/ or bench/ changed since the last
 * build (scripts/build.mjs) and web/dist/ when the web app's sources did (scripts/build-web.mjs), then runs the compiled entry in this same process, as if node had been
 * given it: its arguments and process.argv[1] are the entry's (a cluster forks the entry itself).
 *
 * One process, and the npm scripts `exec` it: npm runs a script through `sh -c`, and the shell
 * (dash, Debian's and Ubuntu's sh) stays as npm's child with the server under it. npm passes
 * SIGTERM and SIGINT to its child only, so the shell died and the server, never told, went on
 * serving: the next start found its port taken. With `exec`, the shell becomes this process and
 * npm's signals reach the server, which finishes its requests and exits; npm exits after it.
 * Without a prestart script there is also no second npm and shell at every start.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfStale } from './build.mjs';
import { buildWebIfStale } from './build-web.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/run.mjs dist/<entry>.js [arguments…]\n');
  process.exit(2);
}
const root = fileURLToPath(new URL('../', import.meta.url));
await buildIfStale();
// The web app the server serves at / (scripts/build-web.mjs): a digest check when nothing changed.
await buildWebIfStale();
const file = path.resolve(root, entry);
process.argv = [process.argv[0], file, ...args];
await import(pathToFileURL(file).href);
