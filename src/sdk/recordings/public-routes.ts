import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { summarizeMetadata } from '../../recordings/core/index.js';
import { playerLines } from '../../recordings/decompress.js';
import { playerPage } from './player-page.js';
import { findEnabledSharing, type RecordingSharing } from '../../recordings/sharing-store.js';
import { getRecording, readChunks } from '../../recordings/store.js';
import { notFound } from '../../posthog/errors.js';
import { contentSecurityPolicy } from '../../http/content-security-policy.js';

const require = createRequire(import.meta.url);

/** A directory's files, listed once: only these names are ever served from it. */
function servable(dir: string, pattern: RegExp): { dir: string; files: Set<string> } {
  return { dir, files: new Set(fs.readdirSync(dir).filter((f) => pattern.test(f))) };
}

/** The pinned posthog-js's browser bundles: the snippet's array.js and everything it loads lazily. */
const POSTHOG_JS_ROOT = path.dirname(require.resolve('posthog-js/package.json'));
const POSTHOG_JS = servable(path.join(POSTHOG_JS_ROOT, 'dist'), /^[\w.-]+\.js(\.map)?$/);
const POSTHOG_JS_VERSION = (JSON.parse(fs.readFileSync(path.join(POSTHOG_JS_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// rrweb-player exports its stylesheet, not its package.json: its folder is found through it.
const RRWEB_PLAYER_DIR = path.dirname(require.resolve('rrweb-player/dist/style.css'));
/** Public names of the player's assets → files of the pinned rrweb-player. */
const PLAYER_ASSETS: Record<string, { file: string; type: string }> = {
  'rrweb-player.js': { file: 'rrweb-player.umd.min.cjs', type: 'application/javascript; charset=utf-8' },
  'style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

const ACCESS_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

function sendFile(reply: FastifyReply, file: string, type: string) {
  return reply
    .type(type)
    .header('cache-control', 'public, max-age=3600')
    .header('x-content-type-options', 'nosniff')
    .send(fs.createReadStream(file));
}

/** Looked up on every request: a disabled share stops answering at once, in every process. */
async function sharedRecording(ctx: AppContext, token: string): Promise<RecordingSharing | undefined> {
  if (!ACCESS_TOKEN.test(token)) return undefined;
  return findEnabledSharing(ctx.database.db, token);
}

const NOT_FOUND_PAGE = '<!doctype html><title>Not found</title><p>This recording is not shared, or no longer exists.</p>\n';

/**
 * Public, unauthenticated routes of recordings: the static posthog-js files the HTML snippet loads,
 * and the shared-recording page with the one data feed its token opens.
 */
export const recordingPublicRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  function posthogJs(reply: FastifyReply, file: string) {
    if (!POSTHOG_JS.files.has(file)) return reply.code(404).type('text/plain').send('Not found\n');
    const type = file.endsWith('.map') ? 'application/json' : 'application/javascript; charset=utf-8';
    return sendFile(reply, path.join(POSTHOG_JS.dir, file), type);
  }

  app.get('/static/:file', async (request, reply) => posthogJs(reply, (request.params as { file: string }).file));

  // posthog-js asks for `/static/<its version>/<file>` first and falls back to `/static/<file>?v=`;
  // only the pinned version is answered here, so another version gets its fallback, never a mismatch.
  app.get('/static/:version/:file', async (request, reply) => {
    const { version, file } = request.params as { version: string; file: string };
    if (version !== POSTHOG_JS_VERSION) return reply.code(404).type('text/plain').send('Not found\n');
    return posthogJs(reply, file);
  });

  app.get('/static/rrweb-player/:file', async (request, reply) => {
    const { file } = request.params as { file: string };
    const asset = Object.hasOwn(PLAYER_ASSETS, file) ? PLAYER_ASSETS[file] : undefined;
    if (!asset) return reply.code(404).type('text/plain').send('Not found\n');
    return sendFile(reply, path.join(RRWEB_PLAYER_DIR, asset.file), asset.type);
  });

  for (const prefix of ['/shared', '/embedded']) {
    app.get(`${prefix}/:token`, async (request, reply) => {
      const sharing = await sharedRecording(ctx, (request.params as { token: string }).token);
      const row = sharing && (await getRecording(ctx.database.db, sharing.teamId, sharing.sessionId));
      // A link (/shared) is never framed; an embed (/embedded) is made for any site's iframe.
      const nonce = randomBytes(16).toString('base64');
      reply
        .header('cache-control', 'no-store')
        .header('x-robots-tag', 'noindex')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'same-origin')
        .header(
          'content-security-policy',
          contentSecurityPolicy({ scriptNonce: nonce, frameAncestors: prefix === '/embedded' ? '*' : "'none'" }),
        );
      if (!sharing || !row) return reply.code(404).type('text/html; charset=utf-8').send(NOT_FOUND_PAGE);
      const s = summarizeMetadata(row.meta);
      // PostHog's reduced serializer for shared access.
      const info = { id: row.sessionId, recording_duration: s.recording_duration, start_time: s.start_time, end_time: s.end_time };
      return reply.type('text/html; charset=utf-8').send(playerPage(sharing.accessToken, info, nonce));
    });
  }

  /** The shared recording's events, one plain rrweb event per line, streamed chunk by chunk. */
  app.get('/shared/:token/snapshots', async (request, reply) => {
    const sharing = await sharedRecording(ctx, (request.params as { token: string }).token);
    reply.header('cache-control', 'no-store');
    if (!sharing) return reply.code(404).send(notFound().toEnvelope());
    const { db } = ctx.database;
    async function* lines() {
      for await (const chunk of readChunks(db, sharing!.teamId, sharing!.sessionId)) yield playerLines(chunk);
    }
    return reply.type('application/jsonl').send(Readable.from(lines()));
  });
};
