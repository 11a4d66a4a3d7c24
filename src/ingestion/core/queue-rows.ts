/**
 * How accepted events become the ingestion queue's rows (queue.ts writes them, the worker reads
 * them back in queue-records.ts). A row holds one event, or a chunk: a JSON array of events, in
 * order. Capture cuts a request's events into chunks (chunkPayloads); the writer then joins the
 * chunks of the requests one commit carries (joinQueueRows). Pure: no database, no clock.
 */
import { splitJsonArray } from '../../lib/json-array.js';
import { queuePartition } from './partition.js';
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
  /**
   * Each event's distinct id, in order, when they are not all `distinctId` (a posthog-node batch):
   * the partition of each is known only with the environment (partitionChunks).
   */
  distinctIds?: string[] | undefined;
}

/** A chunk whose events all belong to one partition of the queue (core/partition.ts). */
export interface PartitionedChunk extends QueueChunk {
  partition: number;
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
    const chunk: QueueChunk = { distinctId: first.distinct_id, payload, count: end - start };
    for (let i = start + 1; i < end; i++) {
      if (payloads[i]!.distinct_id === first.distinct_id) continue;
      chunk.distinctIds = payloads.slice(start, end).map((p) => p.distinct_id);
      break;
    }
    chunks.push(chunk);
  }
  return chunks;
}

/**
 * A request's chunks (chunkPayloads) as rows of one partition each, for the environment `teamId`:
 * a chunk whose events fall into several partitions is split into one chunk per partition, each
 * keeping its events in their order (the order that matters: a distinct id is in one partition).
 * With one partition (SQLite) and for a chunk of one distinct id (posthog-js), nothing is split.
 */
export function partitionChunks(teamId: number, chunks: readonly QueueChunk[], partitions: number): PartitionedChunk[] {
  const out: PartitionedChunk[] = [];
  for (const chunk of chunks) {
    const first = queuePartition(teamId, chunk.distinctId, partitions);
    const ids = chunk.distinctIds;
    const each = ids && partitions > 1 ? ids.map((id) => queuePartition(teamId, id, partitions)) : undefined;
    if (!each || each.every((p) => p === first)) {
      out.push({ distinctId: chunk.distinctId, payload: chunk.payload, count: chunk.count, partition: first });
      continue;
    }
    const parts = splitJsonArray(chunk.payload);
    // Partitions in the order of their first event; each one's events in their order.
    const groups = new Map<number, number[]>();
    for (let i = 0; i < each.length; i++) {
      const group = groups.get(each[i]!);
      if (group) group.push(i);
      else groups.set(each[i]!, [i]);
    }
    for (const [partition, indexes] of groups) {
      const texts = indexes.map((i) => parts[i]!);
      const distinctIds = indexes.map((i) => ids![i]!);
      out.push({
        distinctId: distinctIds[0]!,
        payload: texts.length === 1 ? texts[0]! : `[${texts.join(',')}]`,
        count: texts.length,
        partition,
      });
    }
  }
  return out;
}

/** A queue row as handed to the writer: what its columns will hold. */
export interface QueueRowText extends QueueChunk {
  teamId: number;
  lane: string;
  /** The partition of every event the row holds (core/partition.ts). */
  partition: number;
  /** When capture received its (first) event, ISO. */
  receivedAt: string;
  /**
   * May share a row with the rows beside it (a capture request's chunks); false for a row meant
   * to stay a row of its own.
   */
  joinable: boolean;
}

/**
 * The rows of one commit, as few as they can be: the joinable rows of the same environment, lane
 * and partition become chunks of their events, in order, up to MAX_CHUNK_EVENTS events and
 * MAX_JOINED_CHARS characters. Rows of other keys between them do not stop a join (their order
 * relative to these does not matter: the worker keeps order within a partition only); a row of
 * its own (not joinable) does, for its key, so it stays after the events queued before it. Each
 * joined row takes the place of its first row, and keeps its distinct id and receipt time (every
 * event keeps its own in its payload).
 *
 * Why: a commit of single-event requests wrote a row for each, and on SQLite each row (its
 * B-tree cell, its index entry, its share of the WAL frames) cost single-event capture about a
 * tenth of its time on the server's thread (docs/benchmarks.md). One row of the
 * same text costs a fraction of that, and the worker then reads and deletes one row, not dozens.
 * On PostgreSQL a posthog-node request is split into up to 16 partitions' rows: joining across
 * requests gathers them again.
 */
export function joinQueueRows(rows: readonly QueueRowText[]): QueueRowText[] {
  /** Per output row, the input rows it joins. */
  const runs: number[][] = [];
  /** Per key, the run still open to more rows, with its events and characters so far. */
  const open = new Map<string, { run: number[]; count: number; chars: number }>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const key = `${row.teamId}\n${row.lane}\n${row.partition}`;
    if (!row.joinable) {
      open.delete(key);
      runs.push([i]);
      continue;
    }
    const joining = open.get(key);
    // The joined text: each row's text (an array's without its brackets: counted anyway), a
    // comma between, and the array's brackets.
    if (joining && joining.count + row.count <= MAX_CHUNK_EVENTS && joining.chars + row.payload.length + 1 <= MAX_JOINED_CHARS) {
      joining.run.push(i);
      joining.count += row.count;
      joining.chars += row.payload.length + 1;
      continue;
    }
    const run = [i];
    runs.push(run);
    open.set(key, { run, count: row.count, chars: row.payload.length + 2 });
  }
  return runs.map((run) => (run.length === 1 ? rows[run[0]!]! : joinRun(rows, run)));
}

/** The rows of `run` as one chunk: their events' JSON, in order, in one array. */
function joinRun(rows: readonly QueueRowText[], run: readonly number[]): QueueRowText {
  const first = rows[run[0]!]!;
  const parts = new Array<string>(run.length);
  let count = 0;
  for (let i = 0; i < run.length; i++) {
    const row = rows[run[i]!]!;
    // A row of one event is that event's object; a chunk is an array, whose elements are taken.
    parts[i] = row.payload.startsWith('[') ? row.payload.slice(1, -1) : row.payload;
    count += row.count;
  }
  const joined: QueueRowText = { ...first, payload: `[${parts.join(',')}]`, count };
  delete joined.distinctIds;
  return joined;
}
