/**
 * The built web app on disk (web/dist/, made by scripts/build-web.mjs): where it is, and reading its
 * page and hashed assets. Found from the checkout's root, the first folder above this file with a
 * package.json: the same for the sources (src/web-app/) and the compiled server (dist/src/web-app/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function checkoutRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('no package.json above src/web-app/');
    dir = parent;
  }
  return dir;
}

export const WEB_DIST = path.join(checkoutRoot(), 'web', 'dist');
/** Where the hashed assets are, on disk and in URLs (web/vite.config.ts `assetsDir`). */
export const ASSETS_DIR = 'app-assets';

/** A file name the build can have written: no folders, no dot files. */
const ASSET_NAME = /^[\w-]+(?:\.[\w-]+)*\.(?:js|css|svg|png|woff2?)$/;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/** The app's page; undefined when the app is not built. Read per request: a rebuild is served at once. */
export async function readIndexHtml(): Promise<Buffer | undefined> {
  try {
    return await fs.promises.readFile(path.join(WEB_DIST, 'index.html'));
  } catch {
    return undefined;
  }
}

export interface AssetFile {
  path: string;
  type: string;
  /** The gzip twin scripts/build-web.mjs writes beside text assets, when there is one. */
  gzipPath: string | undefined;
}

/** The asset of that name, or undefined for any name the build did not write. */
export function findAsset(name: string): AssetFile | undefined {
  if (!ASSET_NAME.test(name)) return undefined;
  const file = path.join(WEB_DIST, ASSETS_DIR, name);
  if (!fs.existsSync(file)) return undefined;
  const gzip = `${file}.gz`;
  return { path: file, type: TYPES[path.extname(name)] ?? 'application/octet-stream', gzipPath: fs.existsSync(gzip) ? gzip : undefined };
}
