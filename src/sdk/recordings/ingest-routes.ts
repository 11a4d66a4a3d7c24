import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import { checkTokenShape } from '../../ingestion/core/index.js';
import type { DecodeBodyLimits, QueryParams } from '../decode-body.js';
import { parseSnapshotPayload } from '../../recordings/core/index.js';
import { appendBatch, encodeChunk } from '../../recordings/store.js';
import { acceptRawBodies, decodeRequestBody, INVALID_PROJECT_TOKEN, MISSING_PROJECT_TOKEN } from '../public-responses.js';
import { errorEnvelope } from '../../posthog/errors.js';

const MiB = 1024 * 1024;

/**
 * A recording request's bounds: `maxBytes` (RECORDING_MAX_BYTES) after decompression, and as sent
 * (at most 20 MiB, as PostHog's replay capture takes). posthog-js keeps each request under about
 * 1 MiB (it splits its buffer, and replaces a larger single rrweb event with a "Message too
 * large" note), so the default's tenfold room is for other SDKs' full snapshots.
 */
export function recordingLimits(maxBytes: number): DecodeBodyLimits {
  return { maxBodyBytes: Math.min(20 * MiB, maxBytes), maxDecompressedBytes: maxBytes };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * posthog-js puts the token in each `$snapshot` event's properties; an envelope or the query string
 * may carry it too (as for events). The first one found wins.
 */
function findToken(body: unknown, query: QueryParams): unknown {
  const envelope = record(body);
  if (envelope && (envelope.api_key ?? envelope.token) !== undefined) return envelope.api_key ?? envelope.token;
  const events = Array.isArray(body) ? body : Array.isArray(envelope?.batch) ? (envelope!.batch as unknown[]) : [body];
  for (const raw of events) {
    const event = record(raw);
    const token = event?.token ?? event?.api_key ?? record(event?.properties)?.token;
    if (token !== undefined && token !== null) return token;
  }
  const fromQuery = query.token ?? query.api_key;
  return Array.isArray(fromQuery) ? fromQuery[0] : fromQuery;
}

/**
 * `POST /s/`: posthog-js `$snapshot` events. Each (session, window) batch of the body becomes one
 * stored chunk and is folded into its recording's metadata before the answer, so a 200 means the
 * recording is readable through the API.
 */
export const recordingIngestRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  // As for capture: bodies are raw bytes, often gzip sent as text/plain with no hint.
  acceptRawBodies(app);

  const limits = recordingLimits(ctx.config.recordingMaxBytes);
  app.post('/s', { bodyLimit: limits.maxBodyBytes }, async (request, reply) => {
    const query = (request.query ?? {}) as QueryParams;
    const decoded = decodeRequestBody(request, limits);
    if (!decoded.ok) return reply.code(decoded.status).send({ ...decoded.error, attr: null });

    const token = checkTokenShape(findToken(decoded.value, query));
    if (!token.ok) return reply.code(401).send(token.problem === 'missing' ? MISSING_PROJECT_TOKEN : INVALID_PROJECT_TOKEN);
    const team = await ctx.teams.byApiToken(token.token);
    if (!team) return reply.code(401).send(INVALID_PROJECT_TOKEN);

    const parsed = parseSnapshotPayload(decoded.value);
    if (!parsed.ok) {
      const { code, detail, attr } = parsed.error;
      return reply.code(400).send(errorEnvelope('validation_error', code, detail, attr));
    }
    const now = new Date();
    let stored = 0;
    for (const batch of parsed.batches) {
      const data = await encodeChunk(batch);
      await appendBatch(ctx.database, team.id, batch, data, now);
      stored += batch.events.length;
    }
    request.log.debug({ team: team.id, batches: parsed.batches.length, events: stored }, 'snapshots stored');
    // posthog-js retries anything but 200 and 4xx (docs/decisions/0004-capture-answers-200.md).
    if (query.beacon === '1') return reply.code(204).send();
    return { status: 1 };
  });
};
