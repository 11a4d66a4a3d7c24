import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { Logger } from 'pino';
import { AnalyticsError, jsonEachRowText, parseJsonEachRow, type InsertOptions, type JsonEachRow, type QueryParams } from './engine.js';
import type { EmbeddedEngine } from './embedded-engine.js';

/**
 * The embedded engine's folder belongs to one process at a time. That process serves it to the
 * others on the same machine (HTTP_PROCESSES, `hoglet worker`): a loopback HTTP endpoint, its
 * address and secret in a file beside the folder that only this user can read.
 */
export interface HostAddress {
  url: string;
  secret: string;
  pid: number;
  /** The bodies the host reads: 2 takes an insert's rows after the request; absent, an older host that reads whole JSON only. */
  protocol?: number;
}

/** This build's host protocol (HostAddress.protocol). */
const HOST_PROTOCOL = 2;

/** The largest request a guest may send (an insert of a worker's batch is a few MB). */
const MAX_REQUEST_BYTES = 256 * 1024 * 1024;

export type HostRequest =
  | { op: 'query'; sql: string; params?: QueryParams }
  | { op: 'command'; sql: string; params?: QueryParams }
  | { op: 'insert'; table: string; rows: string; options?: InsertOptions };

/** A request as a guest sends it: an insert's rows may be pieces (JsonEachRow). */
export type GuestRequest =
  Exclude<HostRequest, { op: 'insert' }> | { op: 'insert'; table: string; rows: JsonEachRow; options?: InsertOptions };

/**
 * A request's body: the request as JSON, except an insert's rows, which follow it after a newline
 * as they are (JSON text has no raw newline, so the first one ends it). Escaped into a JSON string,
 * a worker's copy of many batches (tens of MB of JSONEachRow, its properties escaped once already)
 * cost the guest a stringify and the host a parse of all of it. A body with no newline is the
 * request whole (an insert's rows inside it), as older guests send it and as a guest sends it to
 * an older host.
 */
export function requestBody(request: GuestRequest, protocol: number | undefined): string[] {
  if (request.op !== 'insert') return [JSON.stringify(request)];
  if ((protocol ?? 1) < 2) return [JSON.stringify({ ...request, rows: jsonEachRowText(request.rows) })];
  const body = [`${JSON.stringify({ op: request.op, table: request.table, options: request.options })}\n`];
  const { rows } = request;
  if (typeof rows === 'string') body.push(rows);
  else
    for (let i = 0; i < rows.length; i++) {
      if (i > 0) body.push('\n');
      body.push(rows[i]!);
    }
  return body;
}

export function parseRequest(text: string): HostRequest {
  const end = text.indexOf('\n');
  if (end < 0) return JSON.parse(text) as HostRequest;
  const request = JSON.parse(text.slice(0, end)) as HostRequest;
  if (request.op !== 'insert') throw new AnalyticsError('unexpected rows after the request');
  return { ...request, rows: text.slice(end + 1) };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new AnalyticsError('request too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function secretMatches(header: string | undefined, secret: string): boolean {
  const given = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${secret}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface EngineHost {
  address: HostAddress;
  close(): Promise<void>;
}

/** Serves `engine` to the machine's other Hoglet processes and writes where to reach it into `addressFile`. */
export async function hostEngine(engine: EmbeddedEngine, addressFile: string, log: Logger): Promise<EngineHost> {
  const secret = randomBytes(24).toString('base64url');
  const server = http.createServer((req, res) => {
    const answer = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (req.method !== 'POST' || !secretMatches(req.headers.authorization, secret)) return answer(403, '{"message":"forbidden"}');
    readBody(req)
      .then(async (text) => {
        const request = parseRequest(text);
        if (request.op === 'query') return answer(200, await engine.text(request.sql, request.params ?? {}), 'application/x-ndjson');
        if (request.op === 'command') await engine.command(request.sql, request.params ?? {});
        else if (request.op === 'insert') await engine.insert(request.table, request.rows, request.options ?? {});
        else throw new AnalyticsError('unknown operation');
        answer(200, '{}');
      })
      .catch((error: unknown) => {
        const e = error instanceof AnalyticsError ? error : new AnalyticsError((error as Error).message);
        answer(400, JSON.stringify({ message: e.message, code: e.code ?? null }));
      });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const address: HostAddress = { url: `http://127.0.0.1:${port}`, secret, pid: process.pid, protocol: HOST_PROTOCOL };
  const temporary = `${addressFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(address), { mode: 0o600 });
  fs.renameSync(temporary, addressFile);
  log.info({ url: address.url, folder: engine.path }, 'analytics engine served to the other processes of this data dir');
  return {
    address,
    async close() {
      try {
        const current = JSON.parse(fs.readFileSync(addressFile, 'utf8')) as HostAddress;
        if (current.secret === secret) fs.rmSync(addressFile, { force: true });
      } catch {
        // already gone
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function readHostAddress(addressFile: string): HostAddress | undefined {
  try {
    return JSON.parse(fs.readFileSync(addressFile, 'utf8')) as HostAddress;
  } catch {
    return undefined;
  }
}

/** The host could not be reached (it stopped, or is starting): the caller looks for the folder's owner again. */
export class HostUnreachable extends AnalyticsError {}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One request to the host; rows as text for a query. */
export function callHost(address: HostAddress, request: GuestRequest): Promise<string> {
  const body = requestBody(request, address.protocol);
  return new Promise((resolve, reject) => {
    const req = http.request(
      address.url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${address.secret}`,
          'content-type': 'application/json',
          'content-length': body.reduce((sum, part) => sum + Buffer.byteLength(part), 0),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) return resolve(text);
          if (res.statusCode === 403) return reject(new HostUnreachable('the analytics host refused this process (a new host took over)'));
          let parsed: { message?: string; code?: number | null } = {};
          try {
            parsed = JSON.parse(text) as typeof parsed;
          } catch {
            // not the host's JSON
          }
          reject(new AnalyticsError(parsed.message ?? `analytics host answered ${res.statusCode}`, parsed.code ?? undefined));
        });
        res.on('error', (error) => reject(new HostUnreachable(error.message, undefined, { cause: error })));
      },
    );
    req.on('error', (error) => reject(new HostUnreachable(`analytics host unreachable: ${error.message}`, undefined, { cause: error })));
    for (let i = 0; i < body.length - 1; i++) req.write(body[i]);
    req.end(body[body.length - 1]);
  });
}

export function parseHostRows<T>(text: string): T[] {
  return parseJsonEachRow<T>(text);
}
