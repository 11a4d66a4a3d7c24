import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { uuidv7 } from '../lib/uuid.js';
import {
  BATCH_LIMITS,
  CAPTURE_LIMITS,
  extractEvents,
  resolveSentAt,
  type HttpFailure,
  type IngestEndpoint,
  type QueryParams,
} from './core/index.js';
import type { IngestionQueueWriter, QueueRow, WarningRow } from './queue.js';
import { acceptRawBodies, decodeRequestBody, firstHeader, INVALID_PROJECT_TOKEN } from '../http/public-responses.js';

/** Every path the SDKs post events to, and what kind of body each takes. */
const CAPTURE_PATHS: Array<[string, IngestEndpoint]> = [
  ['/capture', 'capture'],
  ['/batch', 'batch'],
  ['/e', 'capture'],
  ['/i/v0/e', 'capture'],
  ['/track', 'capture'],
  ['/engage', 'engage'],
];



function fail(reply: FastifyReply, failure: HttpFailure) {
  return reply.code(failure.status).send({ ...failure.error, attr: null });
}

/**
 * The public capture endpoints (`ingestion-api.md`): decode, validate, commit to the durable
 * queue, answer. Everything else happens in the worker, after the 200.
 */
export const captureRoutes: FastifyPluginAsync<{ ctx: AppContext; queue: IngestionQueueWriter }> = async (
  app,
  { ctx, queue },
) => {
  acceptRawBodies(app);

  for (const [path, endpoint] of CAPTURE_PATHS) {
    const limits = endpoint === 'batch' ? BATCH_LIMITS : CAPTURE_LIMITS;
    app.route({
      method: ['GET', 'POST'],
      url: path,
      bodyLimit: limits.maxBodyBytes,
      handler: async (request, reply) => {
        const query = (request.query ?? {}) as QueryParams;
        const decoded = decodeRequestBody(request, limits);
        if (!decoded.ok) return fail(reply, decoded);
        const extracted = extractEvents({ value: decoded.value, endpoint, query });
        if (!extracted.ok) return fail(reply, extracted);
        const team = await ctx.teams.byApiToken(extracted.token);
        if (!team) return reply.code(401).send(INVALID_PROJECT_TOKEN);

        const now = new Date();
        const nowIso = now.toISOString();
        const sentAt = resolveSentAt(extracted.sentAt, query);
        const sentAtIso = sentAt instanceof Date ? sentAt.toISOString() : (sentAt ?? null);
        const lane = extracted.historicalMigration ? 'historical' : 'realtime';
        const rows: QueueRow[] = extracted.events.map((e) => ({
          teamId: team.id,
          lane,
          distinctId: e.distinctId,
          payload: {
            uuid: e.uuid ?? uuidv7(now.getTime()),
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
            ip: request.ip ?? null,
          },
        }));
        const warnings: WarningRow[] = extracted.dropped.map((d) => ({
          teamId: team.id,
          type: d.warning.type,
          source: 'capture',
          details: d.warning.details,
          timestamp: nowIso,
        }));
        await queue.enqueue(rows, warnings);
        request.log.debug({ team: team.id, path, accepted: rows.length, dropped: warnings.length }, 'events accepted');
        // sendBeacon cannot read a response; PostHog answers it with no content.
        if (query.beacon === '1') return reply.code(204).send();
        return { status: 1 };
      },
    });
  }
};
