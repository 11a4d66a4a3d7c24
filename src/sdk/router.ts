/**
 * The fast lane: node's own HTTP server in front of fastify (fastify's `serverFactory` option),
 * answering the hot SDK endpoints (capture, decide, flags) directly with node's request and
 * response. Everything else goes to fastify unchanged.
 *
 * Why: a capture request is cheap work (decode, validate, hand over to the queue commit) and
 * fastify's per-request machinery (hooks, content-type parsing, reply serialisation) was a large
 * share of its cost. The lane keeps what those routes relied on:
 *
 * - GET (with `?data=`), POST and HEAD (answered as GET without a body, as fastify's HEAD twins
 *   did); OPTIONS (CORS preflight) goes to fastify (204 preflight), and so does every other method
 *   (404 envelope) unless the route answers it 405 itself (PublicRoute.allow);
 * - paths with or without a trailing slash, the query parsed as fastify parses it;
 * - raw bodies whatever the content type, fastify's body limits and 413/415 answers;
 * - the public CORS headers (cors.ts), `request.ip` semantics (client-address.ts);
 * - 503 with `Connection: close` once the server is closing (fastify's `return503OnClosing`),
 *   while requests already in flight finish;
 * - a thrown error answers PostHog's envelope (an ApiError its own; an unreachable database a
 *   503, which SDKs retry; anything else a 500 that says nothing of the server's insides, logged once).
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { readRequestBody } from './body-reader.js';
import type { ClientAddressOf } from '../http/client-address.js';
import { publicCorsHeaders } from '../http/cors.js';
import { isDatabaseUnavailable } from '../platform/db/availability.js';
import { ApiError, methodNotAllowed, serverError, serviceUnavailable } from '../posthog/errors.js';
import type { PublicResponse, PublicRoute } from './public-endpoint.js';
import { parseQuery, readRequestTarget } from './request-target.js';

export interface FastLaneOptions {
  routes: PublicRoute[];
  clientAddress: ClientAddressOf;
  log: Logger;
}

/** The options fastify hands its server factory that shape the HTTP/1 server it would build itself. */
interface ServerSettings {
  http?: http.ServerOptions;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number | null;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const SERVICE_UNAVAILABLE = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}';

export class FastLane {
  private readonly routes = new Map<string, PublicRoute>();
  private closing = false;
  /**
   * Answers of `gatherAnswers` routes finished in this turn of the event loop, written together
   * at its end (`setImmediate`, right after the turn's reads). Writing each answer the moment it
   * was ready interleaved reads and writes: under 50 busy connections decide served 21k
   * requests/s, and 26–27k with the writes gathered (per server CPU second 20.5k → 26k; p99
   * lower too), because the sockets' send path and the client's wake-ups were paid once per burst
   * instead of once per answer. A lone request waits for nothing: its turn ends at once.
   * Headers are written then too, so an answer that waited sees a shutdown begun meanwhile and
   * closes its connection (else a keep-alive client would hold the closing server open).
   */
  private readonly finished: Array<{ request: IncomingMessage; response: ServerResponse; answer: PublicResponse }> = [];
  private readonly writeFinished = () => {
    const finished = this.finished.splice(0);
    for (const { request, response, answer } of finished) {
      try {
        this.send(request, response, answer.status, answer.body);
      } catch (error) {
        this.options.log.error({ err: error, method: request.method, url: request.url }, 'fast lane could not answer');
        response.destroy();
      }
    }
  };

  constructor(private readonly options: FastLaneOptions) {
    for (const route of options.routes) this.routes.set(route.path, route);
  }

  /**
   * For fastify's `serverFactory`: an HTTP/1 server set up as fastify sets up its own, whose
   * requests go to the lane first and to `fastifyHandler` when the lane does not take them.
   * fastify may call it more than once (one server per address of a host name).
   */
  readonly serverFactory = (fastifyHandler: RequestListener, settings: ServerSettings): http.Server => {
    const server = http.createServer(settings.http ?? {}, (request, response) => {
      if (!this.dispatch(request, response)) fastifyHandler(request, response);
    });
    if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout;
    if (settings.requestTimeout !== undefined) server.requestTimeout = settings.requestTimeout;
    server.setTimeout(settings.connectionTimeout ?? 0);
    if (settings.maxRequestsPerSocket) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
    return server;
  };

  /** From now on new lane requests get 503 (fastify's preClose hook calls it); those in flight finish. */
  markClosing(): void {
    this.closing = true;
  }

  /** Whether the server has begun to close (markClosing). */
  get isClosing(): boolean {
    return this.closing;
  }

  /** Takes the request when it is one of the lane's; false leaves it to fastify. */
  private dispatch(request: IncomingMessage, response: ServerResponse): boolean {
    const method = request.method ?? '';
    if (method === 'OPTIONS') return false;
    const served = method === 'POST' || method === 'GET' || method === 'HEAD';
    const target = readRequestTarget(request.url ?? '');
    const route = target && this.routes.get(target.path);
    if (!route) return false;
    if (!served) {
      if (route.allow === undefined) return false;
      // Answered before the body is read, as the 413 is: the connection closes after it.
      this.send(request, response, 405, methodNotAllowed(method).toEnvelope(), { allow: route.allow }, true);
      return true;
    }
    if (this.closing) {
      response.writeHead(503, { 'content-type': 'application/json', 'content-length': SERVICE_UNAVAILABLE.length, connection: 'close' });
      response.end(SERVICE_UNAVAILABLE);
      this.options.log.info({ res: { statusCode: 503 } }, 'request aborted - refusing to accept new requests as server is closing');
      return true;
    }
    this.serve(route, target.query, request, response).catch((error: unknown) => {
      // Only writing the answer itself can fail here; the request cannot be answered any more.
      this.options.log.error({ err: error, method, url: request.url }, 'fast lane could not answer');
      response.destroy();
    });
    return true;
  }

  private async serve(route: PublicRoute, rawQuery: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const read = await readRequestBody(request, route.maxBodyBytes);
      if (!read.ok) {
        if ('error' in read) this.send(request, response, read.error.statusCode, read.error.toEnvelope(), read.error.headers, true);
        return;
      }
      const answer: PublicResponse = await route.handle({
        method: request.method === 'HEAD' ? 'GET' : request.method!,
        query: parseQuery(rawQuery),
        headers: request.headers,
        body: read.body,
        ip: this.options.clientAddress(request),
      });
      if (route.gatherAnswers) this.sendWithTurn(request, response, answer);
      else this.send(request, response, answer.status, answer.body);
    } catch (error) {
      if (error instanceof ApiError) return this.send(request, response, error.statusCode, error.toEnvelope(), error.headers);
      // Logged once for the outage (DatabaseAvailability), not per request.
      if (isDatabaseUnavailable(error)) return this.send(request, response, 503, serviceUnavailable().toEnvelope());
      this.options.log.error({ err: error, method: request.method, url: request.url }, 'unhandled error');
      this.send(request, response, 500, serverError().toEnvelope());
    }
  }

  private send(
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    body: string | object | undefined,
    extraHeaders?: Record<string, string>,
    bodyUnread = false,
  ): void {
    if (response.headersSent || response.destroyed) return;
    const origin = request.headers.origin;
    const headers: http.OutgoingHttpHeaders = origin === undefined ? {} : publicCorsHeaders(origin);
    if (extraHeaders) Object.assign(headers, extraHeaders);
    // Closed after an answer given before the body was read (the rest may still be on its way),
    // and once the server is closing, so that its connections end with their last request.
    if (bodyUnread || this.closing) headers.connection = 'close';
    if (body === undefined) {
      response.writeHead(status, headers);
      response.end();
      return;
    }
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    headers['content-type'] = JSON_TYPE;
    headers['content-length'] = Buffer.byteLength(text);
    response.writeHead(status, headers);
    response.end(text);
  }

  /** Sends the answer with the others finished in this turn of the event loop (`finished`). */
  private sendWithTurn(request: IncomingMessage, response: ServerResponse, answer: PublicResponse): void {
    if (this.finished.length === 0) setImmediate(this.writeFinished);
    this.finished.push({ request, response, answer });
  }
}
