/**
 * A capture request, from its body to the queue rows it becomes: decode, extract, give each event
 * its request context and uuid, and write the rows' JSON. Pure (no database, no clock of its own),
 * so that a large body can be worked on capture's parse thread (capture-thread.ts) while the
 * process's own thread answers other requests; small ones are worked where they arrive. Which
 * environment the token names is not known here: the rows do not name it, the caller looks it up.
 */
import { uuidv7 } from '../../lib/uuid.js';
import type { QueuedEvent } from '../queue.js';
import { decodeBody, type DecodeBodyLimits, type QueryParams } from './decode-body.js';
import { extractEvents, type IngestEndpoint } from './extract.js';
import { chunkPayloads, type QueueChunk } from './queue-rows.js';
import { resolveSentAt } from './timestamps.js';
import type { HttpFailure, IngestionWarning } from './types.js';

export interface CaptureRequestInput {
  endpoint: IngestEndpoint;
  limits: DecodeBodyLimits;
  body: Uint8Array;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  query: QueryParams;
  /** The client address (`$ip`, GeoIP), as the transport determined it. */
  ip: string | null;
  /** When the request was received (ms). */
  nowMs: number;
}

export interface CaptureRequestRows {
  ok: true;
  /** The project token the request names (its environment is looked up by the caller). */
  token: string;
  lane: 'realtime' | 'historical';
  /** The receipt time as the rows carry it (ISO). */
  now: string;
  chunks: QueueChunk[];
  accepted: number;
  /** Events left out (no name, no distinct id, …): an ingestion warning each. */
  dropped: IngestionWarning[];
}

export type CaptureRequestOutcome = CaptureRequestRows | HttpFailure;

/** ISO text of the last millisecond asked for: requests in the same millisecond share it. */
let isoMs = -1;
let isoText = '';
function isoTime(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

export function captureRequestRows(input: CaptureRequestInput): CaptureRequestOutcome {
  const { query } = input;
  const decoded = decodeBody({ body: input.body, contentType: input.contentType, contentEncoding: input.contentEncoding, query, limits: input.limits });
  if (!decoded.ok) return decoded;
  const extracted = extractEvents({ value: decoded.value, endpoint: input.endpoint, query });
  if (!extracted.ok) return extracted;
  const now = isoTime(input.nowMs);
  const sentAt = resolveSentAt(extracted.sentAt, query);
  const sentAtIso = sentAt instanceof Date ? sentAt.toISOString() : (sentAt ?? null);
  const payloads = extracted.events.map(
    (e): QueuedEvent => ({
      uuid: e.uuid ?? uuidv7(input.nowMs),
      event: e.event,
      distinct_id: e.distinctId,
      properties: e.properties,
      timestamp: e.timestamp,
      offset: e.offset,
      set: e.set,
      set_once: e.setOnce,
      unset: e.unset,
      sent_at: sentAtIso,
      now,
      ip: input.ip,
    }),
  );
  return {
    ok: true,
    token: extracted.token,
    lane: extracted.historicalMigration ? 'historical' : 'realtime',
    now,
    chunks: chunkPayloads(payloads),
    accepted: payloads.length,
    dropped: extracted.dropped.map((d) => d.warning),
  };
}
