/**
 * The queue's rows as text (core/queue-rows.ts): a request's events cut into chunks, and the rows
 * of one commit joined into as few as they can be.
 */
import { describe, expect, it } from 'vitest';
import {
  chunkPayloads,
  joinQueueRows,
  MAX_CHUNK_EVENTS,
  partitionChunks,
  MAX_JOINED_CHARS,
  type QueueRowText,
} from '../../src/ingestion/core/queue-rows.js';
import type { QueuedEvent } from '../../src/ingestion/queue.js';
import { queuePartition } from '../../src/ingestion/core/partition.js';

const payload = (n: number, extra: Record<string, unknown> = {}): QueuedEvent => ({
  uuid: `u${n}`,
  event: 'e',
  distinct_id: `d${n}`,
  properties: { n, ...extra },
  now: `2026-03-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
  ip: null,
});

/** The rows capture hands over for a request of `events` (one chunk each, as chunkPayloads cuts them). */
function requestRows(events: QueuedEvent[], overrides: Partial<QueueRowText> = {}): QueueRowText[] {
  return chunkPayloads(events).map((chunk) => ({
    ...chunk,
    teamId: 1,
    lane: 'realtime',
    partition: 0,
    receivedAt: events[0]!.now,
    joinable: true,
    ...overrides,
  }));
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => payload(from + i));
/** Every event a row holds, in order. */
const eventsOf = (row: QueueRowText): QueuedEvent[] => {
  const value = JSON.parse(row.payload) as QueuedEvent | QueuedEvent[];
  return Array.isArray(value) ? value : [value];
};

describe('chunkPayloads', () => {
  it('cuts any run of events into rows of at most MAX_CHUNK_EVENTS, in order', () => {
    const payloads = range(0, 201);
    const chunks = chunkPayloads(payloads);
    expect(chunks.map((c) => [c.distinctId, c.count])).toEqual([
      ['d0', 100],
      ['d100', 100],
      ['d200', 1],
    ]);
    expect(JSON.parse(chunks[2]!.payload)).toEqual(payloads[200]); // a lone event: no array
    expect([...(JSON.parse(chunks[0]!.payload) as unknown[]), ...(JSON.parse(chunks[1]!.payload) as unknown[])]).toEqual(
      payloads.slice(0, 200),
    );
  });
});

describe('joinQueueRows', () => {
  it("joins a commit's single events and chunks of one environment and lane into one row, in order", () => {
    const rows = [...requestRows([payload(1)]), ...requestRows(range(2, 5)), ...requestRows([payload(7)]), ...requestRows(range(8, 3))];
    const joined = joinQueueRows(rows);
    expect(joined).toHaveLength(1);
    expect(joined[0]).toMatchObject({
      teamId: 1,
      lane: 'realtime',
      distinctId: 'd1',
      receivedAt: payload(1).now,
      count: 10,
      joinable: true,
    });
    expect(eventsOf(joined[0]!)).toEqual(range(1, 10));
  });

  it('leaves a row alone that has no neighbour to join', () => {
    const [single] = requestRows([payload(1)]);
    expect(joinQueueRows([single!])[0]).toBe(single);
    expect(joinQueueRows([])).toEqual([]);
  });

  it('keeps environments, lanes and rows of their own apart', () => {
    const rows = [
      ...requestRows([payload(1)]),
      ...requestRows([payload(2)]),
      ...requestRows([payload(3)], { teamId: 2 }),
      ...requestRows([payload(4)], { teamId: 2 }),
      ...requestRows([payload(5)], { teamId: 2, lane: 'historical' }),
      ...requestRows([payload(6)], { joinable: false }),
      ...requestRows([payload(7)]),
      ...requestRows([payload(8)]),
    ];
    const joined = joinQueueRows(rows);
    expect(joined.map((r) => [r.teamId, r.lane, r.count])).toEqual([
      [1, 'realtime', 2],
      [2, 'realtime', 2],
      [2, 'historical', 1],
      [1, 'realtime', 1],
      [1, 'realtime', 2],
    ]);
    expect(joined[3]).toBe(rows[5]);
    expect(joined.flatMap(eventsOf)).toEqual(range(1, 8));
  });

  it('stops a row at MAX_CHUNK_EVENTS events: a full chunk is never joined', () => {
    const rows = [
      ...requestRows(range(0, 60)),
      ...requestRows(range(60, 30)),
      ...requestRows(range(90, 20)),
      ...requestRows(range(110, MAX_CHUNK_EVENTS)),
      ...requestRows([payload(210)]),
    ];
    const joined = joinQueueRows(rows);
    expect(joined.map((r) => r.count)).toEqual([90, 20, MAX_CHUNK_EVENTS, 1]);
    expect(joined.flatMap(eventsOf)).toEqual(range(0, 211));
  });

  it('joins up to exactly MAX_JOINED_CHARS characters, not one more', () => {
    const sized = (n: number, chars: number) => {
      const base = JSON.stringify(payload(n, { padding: '' })).length;
      return payload(n, { padding: 'x'.repeat(chars - base) });
    };
    const half = (MAX_JOINED_CHARS - 3) / 2; // two texts, a comma, two brackets
    const fits = joinQueueRows([...requestRows([sized(0, Math.floor(half))]), ...requestRows([sized(1, Math.ceil(half))])]);
    expect(fits.map((r) => [r.count, r.payload.length])).toEqual([[2, MAX_JOINED_CHARS]]);
    const over = joinQueueRows([...requestRows([sized(0, Math.floor(half))]), ...requestRows([sized(1, Math.ceil(half) + 1)])]);
    expect(over.map((r) => r.count)).toEqual([1, 1]);
  });

  it('stops a row at MAX_JOINED_CHARS characters; a larger row stays as it is', () => {
    const big = (n: number, chars: number) => payload(n, { padding: 'x'.repeat(chars) });
    const third = Math.floor(MAX_JOINED_CHARS / 3);
    const rows = [
      ...requestRows([big(0, third)]),
      ...requestRows([big(1, third)]),
      ...requestRows([big(2, third)]),
      ...requestRows([big(3, MAX_JOINED_CHARS)]),
      ...requestRows([payload(4)]),
    ];
    const joined = joinQueueRows(rows);
    expect(joined.map((r) => r.count)).toEqual([2, 1, 1, 1]);
    for (const row of joined.slice(0, 2)) expect(row.payload.length).toBeLessThanOrEqual(MAX_JOINED_CHARS);
    expect(joined[2]).toBe(rows[3]);
    expect(joined.flatMap(eventsOf).map((e) => e.uuid)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
  });
});

describe('partitionChunks', () => {
  it("splits a chunk of several partitions' events into one chunk per partition, each in order", () => {
    const events = range(0, 60).map((e, i) => ({ ...e, distinct_id: `p${i % 7}` }));
    const chunks = partitionChunks(3, chunkPayloads(events), 16);
    const seen: QueuedEvent[] = [];
    for (const chunk of chunks) {
      const held = eventsOf({ ...chunk, teamId: 3, lane: 'realtime', receivedAt: '', joinable: true });
      expect(held).toHaveLength(chunk.count);
      expect(chunk.distinctId).toBe(held[0]!.distinct_id);
      // One partition per chunk, the one its events' distinct ids map to.
      for (const e of held) expect(queuePartition(3, e.distinct_id, 16)).toBe(chunk.partition);
      // In the request's order within the chunk.
      expect(held.map((e) => e.properties!.n)).toEqual([...held.map((e) => e.properties!.n as number)].sort((a, b) => a - b));
      seen.push(...held);
    }
    expect(new Set(chunks.map((c) => c.partition)).size).toBe(chunks.length);
    expect(seen.map((e) => e.uuid).sort()).toEqual(events.map((e) => e.uuid).sort());
    // A lone event of its partition is a plain row, not an array.
    let other = 0;
    while (queuePartition(3, `other-${other}`, 16) === queuePartition(3, 'd1', 16)) other++;
    const lone = partitionChunks(3, chunkPayloads([payload(1), { ...payload(2), distinct_id: `other-${other}` }]), 16);
    expect(lone.map((chunk) => [chunk.count, chunk.payload.startsWith('{')])).toEqual([
      [1, true],
      [1, true],
    ]);
  });

  it('leaves a chunk whole with one partition, or with one distinct id', () => {
    const mixed = chunkPayloads(range(0, 30));
    expect(mixed[0]!.distinctIds).toHaveLength(30);
    const one = partitionChunks(3, mixed, 1);
    expect(one).toEqual([{ distinctId: 'd0', payload: mixed[0]!.payload, count: 30, partition: 0 }]);
    const same = chunkPayloads(range(0, 30).map((e) => ({ ...e, distinct_id: 'same' })));
    expect(same[0]!.distinctIds).toBeUndefined();
    expect(partitionChunks(3, same, 16)).toEqual([
      { distinctId: 'same', payload: same[0]!.payload, count: 30, partition: queuePartition(3, 'same', 16) },
    ]);
  });
});

describe('joinQueueRows across partitions', () => {
  it("joins each partition's rows of a commit, however they interleave, keeping each partition's order", () => {
    const rows = range(0, 12).flatMap((e, i) => requestRows([e], { partition: i % 3 }));
    const joined = joinQueueRows(rows);
    expect(joined.map((r) => [r.partition, r.count])).toEqual([
      [0, 4],
      [1, 4],
      [2, 4],
    ]);
    expect(eventsOf(joined[1]!).map((e) => e.uuid)).toEqual(['u1', 'u4', 'u7', 'u10']);
  });

  it("stops a partition's join at a row of its own, which stays after the events before it", () => {
    const rows = [
      ...requestRows([payload(0)], { partition: 0 }),
      ...requestRows([payload(1)], { partition: 1 }),
      ...requestRows([payload(2)], { partition: 0, joinable: false }),
      ...requestRows([payload(3)], { partition: 1 }),
      ...requestRows([payload(4)], { partition: 0 }),
    ];
    const joined = joinQueueRows(rows);
    expect(joined.map((r) => [r.partition, eventsOf(r).map((e) => e.uuid)])).toEqual([
      [0, ['u0']],
      [1, ['u1', 'u3']],
      [0, ['u2']],
      [0, ['u4']],
    ]);
  });
});
