/**
 * The public capture endpoints (docs/api.md) as a transport-independent handler: decode,
 * validate and write the queue rows (core/capture-request.ts, on capture's parse thread for large
 * bodies), commit them to the durable queue, answer. Everything else happens in the worker, after
 * the 200. The fast lane (src/sdk/router.ts) serves it for every path in `CAPTURE_PATHS`.
 */
import type { AppContext } from '../../context.js';
import { bodyEncoding, INVALID_PROJECT_TOKEN } from '../public-responses.js';
import type { PublicHandler, PublicResponse, PublicRoute } from '../public-endpoint.js';
import type { HttpFailure, IngestEndpoint } from '../../ingestion/core/index.js';
import { BATCH_LIMITS, CAPTURE_LIMITS } from '../decode-body.js';
import type { CaptureThread } from './capture-thread.js';
import type { IngestionQueueWriter, WarningRow } from '../../ingestion/queue.js';

/** Every path the SDKs post events to, and what kind of body each takes. */
export const CAPTURE_PATHS: ReadonlyArray<readonly [string, IngestEndpoint]> = [
  ['/capture', 'capture'],
  ['/batch', 'batch'],
  ['/e', 'capture'],
  ['/i/v0/e', 'capture'],
  ['/track', 'capture'],
  ['/engage', 'engage'],
];

/** The success answer never changes: serialised once. */
const ACCEPTED: PublicResponse = { status: 200, body: '{"status":1}' };
/** sendBeacon cannot read a response; PostHog answers it with no content. */
const ACCEPTED_BEACON: PublicResponse = { status: 204 };

const failed = (failure: HttpFailure): PublicResponse => ({ status: failure.status, body: { ...failure.error, attr: null } });

export function captureHandler(
  ctx: AppContext,
  queue: IngestionQueueWriter,
  endpoint: IngestEndpoint,
  thread: CaptureThread,
): PublicHandler {
  const limits = endpoint === 'batch' ? BATCH_LIMITS : CAPTURE_LIMITS;
  return async (request) => {
    const { query } = request;
    const rows = await thread.rows({
      endpoint,
      limits,
      body: request.body,
      ...bodyEncoding(request.headers),
      query,
      ip: request.ip ?? null,
      nowMs: Date.now(),
    });
    if (!rows.ok) return failed(rows);
    const team = await ctx.teams.byApiToken(rows.token);
    if (!team) return { status: 401, body: INVALID_PROJECT_TOKEN };
    const warnings: WarningRow[] = rows.dropped.map((warning) => ({
      teamId: team.id,
      type: warning.type,
      source: 'capture',
      details: warning.details,
      timestamp: rows.now,
    }));
    await queue.enqueueChunks(team.id, rows.lane, rows.now, rows.chunks, warnings);
    ctx.log.debug({ team: team.id, endpoint, accepted: rows.accepted, dropped: warnings.length }, 'events accepted');
    return query.beacon === '1' ? ACCEPTED_BEACON : ACCEPTED;
  };
}

/** The capture paths as fast-lane routes. */
export function captureRoutes(ctx: AppContext, queue: IngestionQueueWriter, thread: CaptureThread): PublicRoute[] {
  return CAPTURE_PATHS.map(([path, endpoint]) => ({
    path,
    maxBodyBytes: (endpoint === 'batch' ? BATCH_LIMITS : CAPTURE_LIMITS).maxBodyBytes,
    handle: captureHandler(ctx, queue, endpoint, thread),
  }));
}
