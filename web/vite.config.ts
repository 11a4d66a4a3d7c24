// The web app's build (scripts/build-web.mjs runs it; `npx vite --config web/vite.config.ts` serves it
// for development, with /api and the SDK paths proxied to a Hoglet on :8000).
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const HOGLET = process.env.HOGLET_URL ?? 'http://127.0.0.1:8000';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // No public/ folder: every file the app serves is hashed, under /app-assets/.
  publicDir: false,
  build: {
    outDir: 'dist',
    assetsDir: 'app-assets',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The polyfill is an inline-able snippet; every browser Hoglet targets has modulepreload.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    // .vite/manifest.json: which chunks each page loads (bench/web-size.ts sums the first page's).
    manifest: true,
    chunkSizeWarningLimit: 600,
  },
  server: {
    // Keys starting with ^ are regular expressions: `/e/` is capture, `/events` is a page of the app.
    proxy: { '^/(api|static|decide|flags|e|i|batch|s|capture|array)/': HOGLET },
  },
});
