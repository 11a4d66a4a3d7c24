import type { FastifyRequest } from 'fastify';

/** PostHog's (DRF's LimitOffsetPagination) page size; there is no maximum. */
export const DEFAULT_LIMIT = 100;

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
  return { limit: limit && limit > 0 ? limit : defaultLimit, offset: positiveInt(q.offset) ?? 0 };
}

/** The absolute URL of this request, the way Django's build_absolute_uri sees it. */
export function absoluteUrl(request: FastifyRequest): URL {
  return new URL(request.url, `${request.protocol}://${request.host}`);
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

/** The one paginated body every list endpoint answers with. */
export function paginate<T>(request: FastifyRequest, page: PageRequest, count: number, results: T[]): Page<T> {
  const url = absoluteUrl(request);
  const { limit, offset } = page;
  const next = offset + limit < count ? withParams(url, { limit: String(limit), offset: String(offset + limit) }) : null;
  let previous: string | null = null;
  if (offset > 0) {
    previous =
      offset - limit <= 0
        ? withParams(url, { limit: String(limit) }, ['offset'])
        : withParams(url, { limit: String(limit), offset: String(offset - limit) });
  }
  return { count, next, previous, results };
}
