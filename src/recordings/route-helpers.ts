import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound } from '../posthog/errors.js';
import { getRecording, type RecordingRow } from './store.js';

export const recordingNotFound = () => notFound('Recording not found');

/** The recording named by a route parameter, in the request's environment; 404 as PostHog words it. */
export async function loadRecording(ctx: AppContext, request: FastifyRequest, param = 'id'): Promise<RecordingRow> {
  const id = (request.params as Record<string, string>)[param] ?? '';
  const row = await getRecording(ctx.database.db, request.team!.id, id);
  if (!row) throw recordingNotFound();
  return row;
}
