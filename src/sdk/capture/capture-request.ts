/**
 * A capture request, from its body to the queue rows it becomes: decode, extract, give each event
 * its request context and uuid, and write the rows' JSON. Pure (no database, no clock of its own),
 * so that a large body can be worked on capture's parse thread (capture-thread.ts) while the
 * process's own thread answers other requests; small ones are worked where they arrive. Which
 * environment the token names is not known here: the rows do not name it, the caller looks it up.
 */
import { uuidv7 } from '../../lib/uuid.js';
import type { QueuedEvent } from '../../ingestion/queue.js';
import { decodeBody, type DecodeBodyLimits, type QueryParams } from '../decode-body.js';
import { extractEvents, type IngestEndpoint } from '../../ingestion/core/extract.js';
import { chunkPayloads, type QueueChunk } from '../../ingestion/core/queue-rows.js';
import { resolveSentAt } from '../../ingestion/core/timestamps.js';
import type { HttpFailure, IngestionWarning } from '../../ingestion/core/types.js';

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

/**
 * The largest event, as the bytes of its queued JSON, that is stored; a larger one is dropped
 * with PostHog's `message_size_too_large` warning and the request's other events go on. PostHog's
 * bound is its Kafka message limit (message.max.bytes, 1,000,000 bytes by default).
 */
export const MAX_EVENT_BYTES = 1_000_000;

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
  const decoded = decodeBody({
    body: input.body,
    contentType: input.contentType,
    contentEncoding: input.contentEncoding,
    query,
    limits: input.limits,
  });
  if (!decoded.ok) return decoded;
  const extracted = extractEvents({ value: decoded.value, endpoint: input.endpoint, query });
  if (!extracted.ok) return extracted;
  const now = isoTime(input.nowMs);
  const sentAt = resolveSentAt(extracted.sentAt, query);
  const sentAtIso = sentAt instanceof Date ? sentAt.toISOString() : (sentAt ?? null);
  const payloads = extracted.events.map((e): QueuedEvent => ({
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
  }));
  const dropped = extracted.dropped.map((d) => d.warning);
  let chunks = chunkPayloads(payloads);
  let accepted = payloads;
  // A chunk within the bound holds no event above it: events are measured one by one only then.
  if (chunks.some((chunk) => exceedsEventBound(chunk.payload))) {
    accepted = payloads.filter((payload) => {
      if (!exceedsEventBound(JSON.stringify(payload))) return true;
      dropped.push({ type: 'message_size_too_large', details: { eventUuid: payload.uuid, distinctId: payload.distinct_id } });
      return false;
    });
    chunks = chunkPayloads(accepted);
  }
  return {
    ok: true,
    token: extracted.token,
    lane: extracted.historicalMigration ? 'historical' : 'realtime',
    now,
    chunks,
    accepted: accepted.length,
    dropped,
  };
}

/** Whether JSON text is larger than MAX_EVENT_BYTES in UTF-8 (a UTF-16 unit is at most 3 bytes). */
function exceedsEventBound(text: string): boolean {
  return text.length * 3 > MAX_EVENT_BYTES && Buffer.byteLength(text) > MAX_EVENT_BYTES;
}
