import type { FastifyRequest } from 'fastify';
import { ApiError } from '../posthog/errors.js';
import { pythonRepr } from '../posthog/python-text.js';

/** PostHog's (DRF's LimitOffsetPagination) page size. */
export const DEFAULT_LIMIT = 100;

/**
 * The most rows a page reads, whatever `limit` asks (DRF has no maximum; a page is read whole
 * into memory before it is answered). A larger limit pages on at this size through `next`.
 */
export const MAX_LIMIT = 10_000;

/**
 * About the most bytes of JSON a page answers: a page whose rows pass it ends early (with at
 * least one row), and `next` goes on from there. Rows as large as events and persons can be
 * (up to 1 MB of properties each) would otherwise make one answer of gigabytes.
 */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024;

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

function positiveInt(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A non-positive or unreadable limit means the default; an unreadable offset means 0 (as DRF). */
export function readPage(query: unknown, defaultLimit = DEFAULT_LIMIT): PageRequest {
  const q = (query ?? {}) as Record<string, unknown>;
  const limit = positiveInt(q.limit);
  return { limit: limit && limit > 0 ? Math.min(limit, MAX_LIMIT) : defaultLimit, offset: positiveInt(q.offset) ?? 0 };
}

/** How many of `rows`, from the first, fit in MAX_PAGE_BYTES of JSON (at least one). */
export function rowsWithinPageBytes(rows: readonly unknown[], maxBytes = MAX_PAGE_BYTES): number {
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    bytes += JSON.stringify(rows[i])?.length ?? 0;
    if (bytes > maxBytes && i > 0) return i;
  }
  return rows.length;
}

/** A host (and port) as Django's validate_host accepts it: a name or an IPv6 address in brackets. */
const VALID_HOST = /^([a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(:[0-9]+)?$/i;

/**
 * The absolute URL of this request, the way Django's build_absolute_uri sees it; a Host header no
 * URL can hold is Django's DisallowedHost, a 400.
 */
export function absoluteUrl(request: FastifyRequest): URL {
  const host = request.host;
  if (!VALID_HOST.test(host)) throw new ApiError(400, 'invalid_request', 'invalid_host', `Invalid HTTP_HOST header: ${pythonRepr(host)}.`);
  return new URL(request.url, `${request.protocol}://${host}`);
}

/** DRF rebuilds the query with its parameters sorted by name. */
function withParams(url: URL, set: Record<string, string>, remove: string[] = []): string {
  const params = new Map<string, string[]>();
  url.searchParams.forEach((value, key) => params.set(key, [...(params.get(key) ?? []), value]));
  for (const key of remove) params.delete(key);
  for (const [key, value] of Object.entries(set)) params.set(key, [value]);
  const search = new URLSearchParams();
  for (const key of [...params.keys()].sort()) for (const value of params.get(key)!) search.append(key, value);
  const query = search.toString();
  return `${url.origin}${url.pathname}${query ? `?${query}` : ''}`;
}

/**
 * The one paginated body every list endpoint answers with. A page whose rows pass MAX_PAGE_BYTES
 * is cut short, and its `next` starts after its last row.
 */
export function paginate<T>(request: FastifyRequest, page: PageRequest, count: number, rows: T[]): Page<T> {
  const url = absoluteUrl(request);
  const { limit, offset } = page;
  const results = rows.slice(0, rowsWithinPageBytes(rows));
  const shown = results.length < rows.length ? results.length : limit;
  const next = offset + shown < count ? withParams(url, { limit: String(limit), offset: String(offset + shown) }) : null;
  let previous: string | null = null;
  if (offset > 0) {
    previous =
      offset - limit <= 0
        ? withParams(url, { limit: String(limit) }, ['offset'])
        : withParams(url, { limit: String(limit), offset: String(offset - limit) });
  }
  return { count, next, previous, results };
}
