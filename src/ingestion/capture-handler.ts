/**
 * The public capture endpoints (`ingestion-api.md`) as a transport-independent handler: decode,
 * validate, commit to the durable queue, answer. Everything else happens in the worker, after the
 * 200. The fast lane (src/http/fast-lane.ts) serves it for every path in `CAPTURE_PATHS`.
 */
import type { AppContext } from '../context.js';
import { decodePublicBody, INVALID_PROJECT_TOKEN } from '../http/public-responses.js';
import type { PublicHandler, PublicResponse, PublicRoute } from '../http/public-endpoint.js';
import { uuidv7 } from '../lib/uuid.js';
import {
  BATCH_LIMITS,
  CAPTURE_LIMITS,
  extractEvents,
  resolveSentAt,
  type HttpFailure,
  type IngestEndpoint,
} from './core/index.js';
import type { IngestionQueueWriter, QueueRow, WarningRow } from './queue.js';

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

/** ISO text of the last millisecond asked for: requests in the same millisecond share it. */
let isoMs = -1;
let isoText = '';
function isoTime(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

const failed = (failure: HttpFailure): PublicResponse => ({ status: failure.status, body: { ...failure.error, attr: null } });

export function captureHandler(ctx: AppContext, queue: IngestionQueueWriter, endpoint: IngestEndpoint): PublicHandler {
  const limits = endpoint === 'batch' ? BATCH_LIMITS : CAPTURE_LIMITS;
  return async (request) => {
    const { query } = request;
    const decoded = decodePublicBody(request, limits);
    if (!decoded.ok) return failed(decoded);
    const extracted = extractEvents({ value: decoded.value, endpoint, query });
    if (!extracted.ok) return failed(extracted);
    const team = await ctx.teams.byApiToken(extracted.token);
    if (!team) return { status: 401, body: INVALID_PROJECT_TOKEN };

    const nowMs = Date.now();
    const nowIso = isoTime(nowMs);
    const sentAt = resolveSentAt(extracted.sentAt, query);
    const sentAtIso = sentAt instanceof Date ? sentAt.toISOString() : (sentAt ?? null);
    const lane = extracted.historicalMigration ? 'historical' : 'realtime';
    const ip = request.ip ?? null;
    const rows: QueueRow[] = extracted.events.map((e) => ({
      teamId: team.id,
      lane,
      distinctId: e.distinctId,
      payload: {
        uuid: e.uuid ?? uuidv7(nowMs),
        event: e.event,
        distinct_id: e.distinctId,
        properties: e.properties,
        timestamp: e.timestamp,
        offset: e.offset,
        set: e.set,
        set_once: e.setOnce,
        unset: e.unset,
        sent_at: typeof sentAtIso === 'string' ? sentAtIso : null,
        now: nowIso,
        ip,
      },
    }));
    const warnings: WarningRow[] = extracted.dropped.map((d) => ({
      teamId: team.id,
      type: d.warning.type,
      source: 'capture',
      details: d.warning.details,
      timestamp: nowIso,
    }));
    await queue.enqueueRequest(rows, warnings);
    ctx.log.debug({ team: team.id, endpoint, accepted: rows.length, dropped: warnings.length }, 'events accepted');
    return query.beacon === '1' ? ACCEPTED_BEACON : ACCEPTED;
  };
}

/** The capture paths as fast-lane routes. */
export function captureRoutes(ctx: AppContext, queue: IngestionQueueWriter): PublicRoute[] {
  return CAPTURE_PATHS.map(([path, endpoint]) => ({
    path,
    maxBodyBytes: (endpoint === 'batch' ? BATCH_LIMITS : CAPTURE_LIMITS).maxBodyBytes,
    handle: captureHandler(ctx, queue, endpoint),
  }));
}
