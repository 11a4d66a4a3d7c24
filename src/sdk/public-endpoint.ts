import type { IncomingHttpHeaders } from 'node:http';
import type { QueryParams } from './decode-body.js';

/**
 * A public SDK endpoint (capture, decide) as a plain function of the request, independent of the
 * HTTP machinery that carries it: the fast lane (router.ts) calls it with node's request,
 * tests and benches can call it directly.
 */
export interface PublicRequest {
  /** `GET` or `POST` (a `HEAD` arrives as `GET`; its answer's body is left out by the transport). */
  method: string;
  query: QueryParams;
  headers: IncomingHttpHeaders;
  /** The raw body bytes, whatever the content type (posthog-js sends gzip with no hint); empty for GET. */
  body: Buffer;
  /** The client address (X-Forwarded-For when the proxy is trusted), as fastify's `request.ip`. */
  ip: string | undefined;
}

export interface PublicResponse {
  status: number;
  /** JSON text, or a value to serialise as JSON; none for a 204. */
  body?: string | object;
}

export type PublicHandler = (request: PublicRequest) => Promise<PublicResponse>;

/** A path the fast lane answers, with the handler and the largest body it reads for it. */
export interface PublicRoute {
  /** Without a trailing slash: `/capture` answers `/capture` and `/capture/`. */
  path: string;
  maxBodyBytes: number;
  handle: PublicHandler;
  /**
   * Write answers finished in the same turn of the event loop together at its end (see
   * FastLane.finished). For routes that answer each request as soon as it is read (decide,
   * flags); capture's answers already leave together after each queue commit, and holding them
   * for one more turn measured slower (docs/benchmarks.md).
   */
  gatherAnswers?: boolean;
  /**
   * When set, the lane answers methods other than GET, POST, HEAD and OPTIONS itself: 405 with this
   * `Allow` header (PostHog's flags service does so for /flags and /decide). Without it they go to
   * fastify. OPTIONS always does: the CORS preflight is fastify's (cors.ts).
   */
  allow?: string;
}
