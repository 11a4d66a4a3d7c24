/**
 * The JavaScript the web app ships for its first pages, gzipped as the server sends it: the entry
 * chunk and the chunks a page loads (Vite's manifest, web/dist/.vite/manifest.json, lists each
 * page's imports). Run by `npm run bench`, which builds web/dist/ first when it is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './harness.js';

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
}

/** The pages measured: the sign-in page (every visitor's first) and Activity (a signed-in user's). */
export const MEASURED_PAGES = {
  'sign-in': 'src/pages/login/LoginPage.tsx',
  activity: 'src/pages/activity/ActivityPage.tsx',
  'get started': 'src/pages/get-started/GetStartedPage.tsx',
} as const;

export interface WebSize {
  page: string;
  jsGzipBytes: number;
  cssGzipBytes: number;
  chunks: number;
}

function gzipSize(dist: string, file: string): number {
  const gz = path.join(dist, `${file}.gz`);
  return fs.statSync(fs.existsSync(gz) ? gz : path.join(dist, file)).size;
}

/** Each measured page's JavaScript and CSS (gzip bytes): the entry, the page, and what they import. */
export async function webSizes(): Promise<WebSize[]> {
  const build = (await import(pathToFileURL(path.join(ROOT, 'scripts/build-web.mjs')).href)) as {
    buildWebIfStale(): Promise<boolean>;
    WEB_DIST: string;
  };
  await build.buildWebIfStale();
  const dist = build.WEB_DIST;
  const manifest = JSON.parse(fs.readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  return Object.entries(MEASURED_PAGES).map(([page, source]) => {
    const seen = new Set<string>();
    const visit = (key: string) => {
      if (seen.has(key)) return;
      seen.add(key);
      for (const next of manifest[key]?.imports ?? []) visit(next);
    };
    visit('index.html');
    visit(source);
    const chunks = [...seen].map((key) => manifest[key]!);
    const css = new Set(chunks.flatMap((c) => c.css ?? []));
    return {
      page,
      jsGzipBytes: chunks.reduce((sum, c) => sum + gzipSize(dist, c.file), 0),
      cssGzipBytes: [...css].reduce((sum, file) => sum + gzipSize(dist, file), 0),
      chunks: chunks.length,
    };
  });
}

export function webSizeText(sizes: WebSize[]): string {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  return sizes
    .map(
      (s, i) =>
        `${(i === 0 ? `web app JS, first page (${s.page})` : `web app JS, ${s.page} page`).padEnd(44)} ${kb(s.jsGzipBytes).padStart(10)} KB gzip   | ${s.chunks} chunks, CSS ${kb(s.cssGzipBytes)} KB gzip | target < 250 KB\n`,
    )
    .join('');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.stdout.write(webSizeText(await webSizes()));
}
