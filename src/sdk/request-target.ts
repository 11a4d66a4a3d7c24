/**
 * The path and query of a request target, read as fastify's router (find-my-way) reads them, so
 * the fast lane matches the same URLs fastify matched before: the path ends at `?` or `#`, is
 * percent-decoded (reserved characters such as `%2F` stay encoded), loses one trailing slash
 * (`ignoreTrailingSlash`), and an absolute-form target (`POST http://host/capture/`) counts by
 * its path.
 */
import querystring from 'fast-querystring';
import type { QueryParams } from './decode-body.js';

export interface RequestTarget {
  /** Without its trailing slash (`/capture/` → `/capture`; `/` stays `/`). */
  path: string;
  /** The raw query string, without the `?` (empty when none). */
  query: string;
}

export function readRequestTarget(url: string): RequestTarget | undefined {
  let target = url;
  if (target.charCodeAt(0) !== 0x2f /* / */) {
    const scheme = /^https?:\/\/[^/?#]*/i.exec(target);
    if (!scheme) return undefined;
    target = target.slice(scheme[0].length) || '/';
  }
  let end = target.length;
  const question = target.indexOf('?');
  const hash = target.indexOf('#');
  if (question !== -1) end = question;
  if (hash !== -1 && hash < end) end = hash;
  let path = target.slice(0, end);
  if (path.includes('%')) {
    try {
      path = decodeURI(path);
    } catch {
      return undefined; // malformed escapes: fastify answers those
    }
  }
  if (path.length > 1 && path.charCodeAt(path.length - 1) === 0x2f) path = path.slice(0, -1);
  const query = question === -1 || question !== end ? '' : target.slice(question + 1, hash > question ? hash : undefined);
  return { path, query };
}

/**
 * A query string as fastify parses it, with the parser its router uses (fast-querystring): `+` is
 * a space, values are percent-decoded (kept as sent when the escapes are malformed), a repeated
 * key gives an array, and a key without `=` has the empty value.
 */
export function parseQuery(text: string): QueryParams {
  return querystring.parse(text) as QueryParams;
}
