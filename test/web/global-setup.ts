/**
 * vitest's global setup: the web app built once for the whole run when its sources changed (the
 * server serves web/dist/; the browser tests need it), as `npm start` does, not once per file.
 */
import { buildWebIfStale } from '../../scripts/build-web.mjs';

export default async function setup(): Promise<void> {
  await buildWebIfStale();
}
