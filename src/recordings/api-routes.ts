import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound, validationError } from '../posthog/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { readRecordingListQuery } from './list-query.js';
import { serializeRecordings } from './serialize.js';
import { getPersonByRef } from '../persons/store.js';
import { sharingRoutes } from './sharing-routes.js';
import { loadRecording } from './route-helpers.js';
import { deleteRecording, listChunks, listRecordings, readChunks, setViewed, type RecordingRow } from './store.js';
import { recordActivity } from '../activity/store.js';
import { readBoolean } from '../posthog/fields.js';

/** PostHog's page size for recordings. */
const RECORDINGS_PAGE_SIZE = 50;
/** PostHog lets personal API keys fetch at most this many blocks per snapshots call. */
export const MAX_BLOB_KEYS_PER_CALL = 20;
export const SNAPSHOT_SOURCE = 'blob_v2';

function blobKey(value: unknown): number {
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) throw validationError('Blob keys must be integers');
  return Number(value);
}

export const recordingApiRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;

  async function one(request: FastifyRequest, row: RecordingRow) {
    return (await serializeRecordings(db, request.team!, request.principal!.user.id, [row]))[0]!;
  }

  for (const base of TEAM_ROUTE_BASES) {
    const path = `${base.base}/session_recordings`;
    const read = teamAccess('session_recording:read', base);
    const write = teamAccess('session_recording:write', base);

    // Paginated like every list (count/next/previous), plus PostHog's own `has_next` and `version`.
    app.get(`${path}/`, { config: read }, async (request) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const page = readPage(query, RECORDINGS_PAGE_SIZE);
      const { filter, person } = readRecordingListQuery(query);
      const teamId = request.team!.id;
      if (person !== undefined) {
        const found = await getPersonByRef(db, teamId, person);
        // No such person: no recordings (an empty id list matches none).
        if (!found) filter.distinctIds = [];
        else filter.personId = found.id;
      }
      const { count, rows } = await listRecordings(db, teamId, filter, page);
      const results = await serializeRecordings(db, request.team!, request.principal!.user.id, rows);
      return { ...paginate(request, page, count, results), has_next: page.offset + rows.length < count, version: 4 };
    });

    app.get(`${path}/:id/`, { config: read }, async (request) => one(request, await loadRecording(ctx, request)));

    /**
     * Contract: PATCH answers 200 with the recording
     * (docs/decisions/0006-recording-patch-answers-recording.md). `viewed` marks (or, unlike
     * PostHog, un-marks) the recording as seen by the caller; `person` is accepted as the contract
     * documents it but is derived from the distinct id, as PostHog ignores it too.
     */
    app.patch(`${path}/:id/`, { config: write }, async (request) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body))
        throw validationError('Invalid data. Expected a dictionary.', 'non_field_errors', 'invalid');
      const row = await loadRecording(ctx, request);
      if (body.person !== undefined && body.person !== null && (typeof body.person !== 'object' || Array.isArray(body.person))) {
        throw validationError(
          `Expected a dictionary of items but got type "${Array.isArray(body.person) ? 'list' : typeof body.person}".`,
          'person',
          'not_a_dict',
        );
      }
      if (body.analyzed !== undefined) readBoolean(body.analyzed, 'analyzed');
      if (body.viewed !== undefined) {
        await setViewed(db, row.teamId, row.sessionId, request.principal!.user.id, readBoolean(body.viewed, 'viewed'));
      }
      return one(request, row);
    });

    app.delete(`${path}/:id/`, { config: write }, async (request, reply) => {
      const row = await loadRecording(ctx, request);
      await deleteRecording(ctx.database, row.teamId, row.sessionId);
      await recordActivity(ctx.database.db, {
        organizationId: request.team!.organizationId,
        teamId: row.teamId,
        scope: 'Replay',
        itemId: row.sessionId,
        activity: 'deleted',
        actor: { userId: request.principal!.user.id, apiKeyId: request.principal!.key?.id ?? null },
        name: row.sessionId,
      });
      return reply.code(204).send();
    });

    /**
     * PostHog's two-step protocol: without `source`, the list of blocks (one per stored chunk);
     * with `source=blob_v2&start_blob_key=&end_blob_key=`, those blocks as JSON lines, streamed
     * one chunk at a time.
     */
    app.get(`${path}/:id/snapshots`, { config: read }, async (request, reply) => {
      const row = await loadRecording(ctx, request);
      const q = (request.query ?? {}) as Record<string, unknown>;
      if (q.source === undefined) {
        const chunks = await listChunks(db, row.teamId, row.sessionId);
        return {
          sources: chunks.map((c) => ({
            source: SNAPSHOT_SOURCE,
            start_timestamp: new Date(c.firstTimestamp).toISOString(),
            end_timestamp: new Date(c.lastTimestamp).toISOString(),
            blob_key: String(c.seq),
          })),
        };
      }
      if (q.source !== SNAPSHOT_SOURCE) throw validationError(`Invalid source must be one of ['${SNAPSHOT_SOURCE}']`);
      if (q.start_blob_key === undefined || q.end_blob_key === undefined) {
        throw validationError('Must provide both start blob key and end blob key');
      }
      const start = blobKey(q.start_blob_key);
      const end = blobKey(q.end_blob_key);
      if (end - start + 1 > MAX_BLOB_KEYS_PER_CALL) {
        throw validationError(`Cannot request more than ${MAX_BLOB_KEYS_PER_CALL} blob keys at once`);
      }
      if (start > end || end >= row.chunkCount) throw notFound('Block index out of range');
      return reply
        .type('application/jsonl')
        .header('cache-control', 'max-age=3600')
        .send(Readable.from(readChunks(db, row.teamId, row.sessionId, start, end)));
    });
  }

  await app.register(sharingRoutes, { ctx });
};
