/**
 * How accepted events become the ingestion queue's rows (queue.ts writes them, the worker reads
 * them back in queue-records.ts). A row holds one event, or a chunk: a JSON array of events, in
 * order. Capture cuts a request's events into chunks (chunkPayloads); the writer then joins the
 * chunks of the requests one commit carries (joinQueueRows). Pure: no database, no clock.
 */
import type { QueuedEvent } from './types.js';

/**
 * The most events one queue row holds. posthog-node sends 100 at most a request, posthog-js
 * fewer; a larger request is cut. A failed batch retried one event at a time rewrites the chunk
 * once per event (one-by-one.ts), so a chunk's size bounds that cost too.
 */
export const MAX_CHUNK_EVENTS = 100;

/**
 * The most characters of JSON a row joined from several requests' rows holds: a few hundred
 * single events, not a handful of 2 MB ones (a row that is larger by itself stays as it is).
 */
export const MAX_JOINED_CHARS = 1024 * 1024;

/** One queue row's worth of a request: its first event's distinct id, its JSON, how many events. */
export interface QueueChunk {
  distinctId: string;
  payload: string;
  count: number;
}

/**
 * Events of one environment and lane, in order, as queue rows: chunks of up to MAX_CHUNK_EVENTS,
 * each the JSON array of their payloads; a lone event stays a plain row, as the worker has always
 * read them. A chunk is one JSON.stringify of the payloads' array (the same text as each payload's
 * JSON joined by commas): one call instead of one per event, and no string built up piece by piece
 * for SQLite to flatten.
 */
export function chunkPayloads(payloads: readonly QueuedEvent[]): QueueChunk[] {
  const chunks: QueueChunk[] = [];
  for (let start = 0; start < payloads.length; start += MAX_CHUNK_EVENTS) {
    const end = Math.min(payloads.length, start + MAX_CHUNK_EVENTS);
    const first = payloads[start]!;
    const payload = end - start === 1 ? JSON.stringify(first) : JSON.stringify(payloads.slice(start, end));
    chunks.push({ distinctId: first.distinct_id, payload, count: end - start });
  }
  return chunks;
}

/** A queue row as handed to the writer: what its columns will hold. */
export interface QueueRowText extends QueueChunk {
  teamId: number;
  lane: string;
  /** When capture received its (first) event, ISO. */
  receivedAt: string;
  /**
   * May share a row with the rows beside it (a capture request's chunks); false for a row meant
   * to stay a row of its own.
   */
  joinable: boolean;
}

/**
 * The rows of one commit, as few as they can be: each run of joinable rows of the same
 * environment and lane becomes one chunk of their events, in order, up to MAX_CHUNK_EVENTS events
 * and MAX_JOINED_CHARS characters. The joined row keeps its first row's distinct id and receipt
 * time (every event keeps its own in its payload).
 *
 * Why: a commit of single-event requests wrote a row for each, and on SQLite each row (its
 * B-tree cell, its index entry, its share of the WAL frames) cost single-event capture about a
 * tenth of its time on the server's thread (docs/benchmarks.md). One row of the
 * same text costs a fraction of that, and the worker then reads and deletes one row, not dozens.
 */
export function joinQueueRows(rows: readonly QueueRowText[]): QueueRowText[] {
  const joined: QueueRowText[] = [];
  let start = 0;
  while (start < rows.length) {
    const first = rows[start]!;
    let end = start + 1;
    if (first.joinable) {
      let count = first.count;
      // The joined text: each row's text (an array's without its brackets: counted anyway), a
      // comma between, and the array's brackets.
      let chars = first.payload.length + 2;
      for (; end < rows.length; end++) {
        const next = rows[end]!;
        if (!next.joinable || next.teamId !== first.teamId || next.lane !== first.lane) break;
        if (count + next.count > MAX_CHUNK_EVENTS || chars + next.payload.length + 1 > MAX_JOINED_CHARS) break;
        count += next.count;
        chars += next.payload.length + 1;
      }
    }
    joined.push(end === start + 1 ? first : joinRun(rows, start, end));
    start = end;
  }
  return joined;
}

/** Rows start..end (exclusive) as one chunk: their events' JSON, in order, in one array. */
function joinRun(rows: readonly QueueRowText[], start: number, end: number): QueueRowText {
  const first = rows[start]!;
  const parts = new Array<string>(end - start);
  let count = 0;
  for (let i = start; i < end; i++) {
    const row = rows[i]!;
    // A row of one event is that event's object; a chunk is an array, whose elements are taken.
    parts[i - start] = row.payload.startsWith('[') ? row.payload.slice(1, -1) : row.payload;
    count += row.count;
  }
  return { ...first, payload: `[${parts.join(',')}]`, count };
}
