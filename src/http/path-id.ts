import type { FastifyRequest } from 'fastify';
import { notFound } from '../posthog/errors.js';

/** A positive integer path id, else 404 (as DRF's lookup would find nothing). */
export function pathId(request: FastifyRequest): number {
  const raw = (request.params as { id: string }).id;
  if (!/^\d{1,15}$/.test(raw)) throw notFound();
  return Number(raw);
}
