/**
 * An `activity/` action's page (PostHog's activity_page.py: `load_activity` and
 * `activity_page_response`): `limit` (default 10) and 1-based `page` (default 1), answered as
 * `{results, next, previous, total_count}` with each entry as the environments' `activity/` shows it.
 */
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { validationError } from '../posthog/errors.js';
import { absoluteUrl } from '../http/pagination.js';
import { pyInt, queryParam } from '../posthog/python-values.js';
import { activityAuthors, listActivity, type ActivityRecord } from './store.js';

type Db = Kysely<Schema>;

export interface ActivityPageParams {
  limit: number;
  page: number;
}

/**
 * A positive integer as Python's `int()` reads it. PostHog's `int(...)` raises on anything else
 * and its paginator on zero or less, both answered with a 500 there; here with a 400.
 */
function positiveParam(query: unknown, name: string, fallback: number): number {
  const text = queryParam(query, name);
  if (text === undefined) return fallback;
  const n = pyInt(text);
  if (n === null) throw validationError('A valid integer is required.', name, 'invalid');
  if (n < 1) throw validationError('Ensure this value is greater than or equal to 1.', name, 'min_value');
  // Beyond this the page's offset could not be computed exactly, nor stored by either backend.
  if (!Number.isSafeInteger(n))
    throw validationError(`Ensure this value is less than or equal to ${Number.MAX_SAFE_INTEGER}.`, name, 'max_value');
  return n;
}

export function readActivityPageParams(query: unknown): ActivityPageParams {
  return { limit: positiveParam(query, 'limit', 10), page: positiveParam(query, 'page', 1) };
}

/** Entries with their authors, in the shape the environments' `activity/` answers. */
export async function serializeActivity(db: Db, records: ActivityRecord[]) {
  const userIds = [...new Set(records.map((r) => r.userId).filter((id): id is number => id !== null))];
  const users = await activityAuthors(db, userIds);
  const byId = new Map(users.map((u) => [Number(u.id), u]));
  return records.map((r) => {
    const user = r.userId === null ? undefined : byId.get(r.userId);
    return {
      id: r.id,
      // Entries written by the system (ingestion, background jobs) have no user.
      user: user ? { first_name: user.first_name, email: user.email } : { first_name: 'System', email: null, is_system: true },
      activity: r.activity,
      scope: r.scope,
      item_id: r.itemId,
      detail: r.detail,
      created_at: r.createdAt,
    };
  });
}

/**
 * One page of a scope's (or one item's) history, newest first. `next` and `previous` are this
 * request's URL with `page` (and `limit`, as PostHog's format_query_params_absolute_url sets it)
 * changed; null on the first and last pages.
 */
export async function activityPage(
  request: FastifyRequest,
  db: Db,
  filter: { scope: string; teamId: number; itemId?: string },
  { limit, page }: ActivityPageParams,
) {
  // A page far past the end reads nothing rather than an offset neither backend can hold.
  const offset = Math.min((page - 1) * limit, Number.MAX_SAFE_INTEGER);
  const { total, records } = await listActivity(db, filter, { limit, offset });
  const pageUrl = (n: number) => {
    const url = absoluteUrl(request);
    url.searchParams.set('page', String(n));
    url.searchParams.set('limit', String(limit));
    return url.toString();
  };
  return {
    results: await serializeActivity(db, records),
    next: page * limit < total ? pageUrl(page + 1) : null,
    previous: page > 1 ? pageUrl(page - 1) : null,
    total_count: total,
  };
}
