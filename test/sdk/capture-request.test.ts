/**
 * A capture request's body worked into queue rows (core/capture-request.ts), and capture's parse
 * thread, which works large bodies with the same function on another thread (capture-thread.ts).
 */
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALWAYS_OFFLOAD_BYTES,
  CaptureThread,
  INLINE_EVERY,
  MAX_IN_HAND,
  OFFLOAD_MIN_BYTES,
  workSize,
} from '../../src/sdk/capture/capture-thread.js';
import { captureRequestRows, MAX_EVENT_BYTES, type CaptureRequestInput } from '../../src/sdk/capture/capture-request.js';
import { MAX_CHUNK_EVENTS } from '../../src/ingestion/core/queue-rows.js';
import { BATCH_LIMITS, CAPTURE_LIMITS } from '../../src/sdk/decode-body.js';
import type { QueuedEvent } from '../../src/ingestion/queue.js';
import { RequestThread } from '../../src/platform/request-thread.js';

const NOW_MS = Date.parse('2026-03-01T12:00:00.000Z');

/** A batch body of `count` events, each with its own uuid (so that answers can be compared whole). */
function batchBody(count: number, extra: Record<string, unknown> = {}): Uint8Array {
  const batch = Array.from({ length: count }, (_, i) => ({
    event: i % 7 === 3 ? '' : `event ${i % 5}`,
    uuid: `0190f2b4-0000-7000-8000-${String(i).padStart(12, '0')}`,
    properties: { distinct_id: `user-${i % 9}`, $current_url: `https://example.com/page/${i}`, padding: 'x'.repeat(200), ...extra },
    timestamp: '2026-03-01T11:59:00.000Z',
  }));
  return Buffer.from(JSON.stringify({ api_key: 'phc_token', sent_at: '2026-03-01T12:00:00.000Z', batch }));
}

function input(body: Uint8Array, overrides: Partial<CaptureRequestInput> = {}): CaptureRequestInput {
  return {
    endpoint: 'batch',
    limits: BATCH_LIMITS,
    body,
    contentType: 'application/json',
    contentEncoding: undefined,
    query: {},
    ip: '203.0.113.9',
    nowMs: NOW_MS,
    ...overrides,
  };
}

describe('captureRequestRows', () => {
  it('writes a request as its queue rows: chunks of its events with their request context, the dropped ones as warnings', () => {
    const rows = captureRequestRows(input(batchBody(250)));
    if (!rows.ok) throw new Error('refused');
    expect(rows).toMatchObject({ token: 'phc_token', lane: 'realtime', now: '2026-03-01T12:00:00.000Z' });
    // Every seventh event has no name: dropped with a warning, the others kept in order.
    const kept = Array.from({ length: 250 }, (_, i) => i).filter((i) => i % 7 !== 3);
    expect(rows.accepted).toBe(kept.length);
    expect(rows.dropped).toHaveLength(250 - kept.length);
    expect(rows.dropped[0]).toMatchObject({ type: 'missing_event_name' });
    expect(rows.chunks.map((c) => c.count)).toEqual([MAX_CHUNK_EVENTS, MAX_CHUNK_EVENTS, kept.length - 2 * MAX_CHUNK_EVENTS]);
    const events = rows.chunks.flatMap((c) => JSON.parse(c.payload) as QueuedEvent[]);
    expect(events.map((e) => e.uuid)).toEqual(kept.map((i) => `0190f2b4-0000-7000-8000-${String(i).padStart(12, '0')}`));
    expect(events[0]).toMatchObject({
      distinct_id: 'user-0',
      event: 'event 0',
      ip: '203.0.113.9',
      now: '2026-03-01T12:00:00.000Z',
      sent_at: '2026-03-01T12:00:00.000Z',
    });
    expect(rows.chunks.map((c) => c.distinctId)).toEqual([events[0]!.distinct_id, events[100]!.distinct_id, events[200]!.distinct_id]);
  });

  it('keeps a lone event a plain row, and answers refusals as the transport should', () => {
    const single = captureRequestRows(
      input(Buffer.from(JSON.stringify({ api_key: 'phc_token', event: 'one', distinct_id: 'd' })), {
        endpoint: 'capture',
        limits: CAPTURE_LIMITS,
      }),
    );
    if (!single.ok) throw new Error('refused');
    expect(single.chunks).toHaveLength(1);
    expect(JSON.parse(single.chunks[0]!.payload)).toMatchObject({ event: 'one', distinct_id: 'd' });
    expect(captureRequestRows(input(Buffer.from('{"batch": [')))).toMatchObject({ ok: false, status: 400 });
    expect(captureRequestRows(input(Buffer.from(JSON.stringify({ batch: [{ event: 'x', distinct_id: 'd' }] }))))).toMatchObject({
      ok: false,
      status: 401,
    });
  });
});

describe('captureRequestRows: the event size bound', () => {
  const uuidOf = (i: number) => `0190f2b4-0000-7000-8000-${String(i).padStart(12, '0')}`;
  const batchOf = (sizes: Array<{ chars: number; char?: string }>) =>
    Buffer.from(
      JSON.stringify({
        api_key: 'phc_token',
        batch: sizes.map(({ chars, char = 'x' }, i) => ({
          event: 'e',
          distinct_id: `user-${i}`,
          uuid: uuidOf(i),
          properties: { blob: char.repeat(chars) },
        })),
      }),
    );
  const storedUuids = (rows: ReturnType<typeof captureRequestRows>) => {
    if (!rows.ok) throw new Error('refused');
    return rows.chunks.flatMap((c) => {
      const parsed = JSON.parse(c.payload) as QueuedEvent | QueuedEvent[];
      return (Array.isArray(parsed) ? parsed : [parsed]).map((e) => e.uuid);
    });
  };

  it('drops an event over MAX_EVENT_BYTES with PostHog warning, and keeps its neighbours in order', () => {
    const rows = captureRequestRows(input(batchOf([{ chars: 10 }, { chars: 2 * 1024 * 1024 }, { chars: 20 }])));
    expect(storedUuids(rows)).toEqual([uuidOf(0), uuidOf(2)]);
    if (!rows.ok) throw new Error('refused');
    expect(rows.accepted).toBe(2);
    expect(rows.dropped).toEqual([{ type: 'message_size_too_large', details: { eventUuid: uuidOf(1), distinctId: 'user-1' } }]);
  });

  it('measures bytes, not characters, and keeps events just under the bound however large their chunk', () => {
    // 400,000 three-byte characters are 1.2 MB; 900,000 ASCII ones stay under the bound, and so do
    // two of them side by side although their chunk is twice the bound.
    const rows = captureRequestRows(input(batchOf([{ chars: 400_000, char: '€' }, { chars: 900_000 }, { chars: 900_000 }])));
    expect(storedUuids(rows)).toEqual([uuidOf(1), uuidOf(2)]);
    if (!rows.ok) throw new Error('refused');
    expect(rows.dropped.map((d) => d.details.eventUuid)).toEqual([uuidOf(0)]);
    expect(900_000).toBeLessThan(MAX_EVENT_BYTES);
  });

  it('answers 200 for a request whose only event is too large, with its warning and no rows', () => {
    const rows = captureRequestRows(input(batchOf([{ chars: 1_100_000 }])));
    expect(rows).toMatchObject({ ok: true, accepted: 0, chunks: [] });
    if (!rows.ok) throw new Error('refused');
    expect(rows.dropped).toHaveLength(1);
  });
});

describe('CaptureThread', () => {
  let thread: CaptureThread | undefined;
  afterEach(async () => {
    await thread?.close();
    thread = undefined;
  });

  it('answers large bodies on its thread exactly as they are answered inline; small ones inline', async () => {
    thread = new CaptureThread(pino({ level: 'silent' }));
    const large = batchBody(120);
    expect(large.length).toBeGreaterThanOrEqual(OFFLOAD_MIN_BYTES);
    // A gzip body is judged by the text it holds, which its trailer tells.
    const gzipped = gzipSync(large);
    expect(gzipped.length).toBeLessThan(OFFLOAD_MIN_BYTES);
    expect(workSize(gzipped)).toBe(large.length);
    for (const body of [large, gzipped]) {
      const before = thread.answeredOnThread;
      expect(await thread.rows(input(body))).toEqual(captureRequestRows(input(body)));
      expect(thread.answeredOnThread - before).toBe(1);
    }
    const refused = input(Buffer.concat([Buffer.from('{"batch":['), Buffer.alloc(OFFLOAD_MIN_BYTES, 0x20)]));
    expect(await thread.rows(refused)).toEqual(captureRequestRows(refused));
    expect((await thread.rows(refused)).ok).toBe(false);
    const small = input(batchBody(2));
    expect(workSize(small.body)).toBeLessThan(OFFLOAD_MIN_BYTES);
    const answered = thread.answeredOnThread;
    expect(await thread.rows(small)).toEqual(captureRequestRows(small));
    expect(thread.answeredOnThread).toBe(answered);
  });

  it('works one large request in INLINE_EVERY where it arrives, and any beyond MAX_IN_HAND, with the same answers', async () => {
    thread = new CaptureThread(pino({ level: 'silent' }));
    const inputs = Array.from({ length: 2 * INLINE_EVERY }, (_, n) => input(batchBody(100 + n)));
    expect(await Promise.all(inputs.map((each) => thread!.rows(each)))).toEqual(inputs.map((each) => captureRequestRows(each)));
    expect(thread.answeredOnThread).toBe(2 * INLINE_EVERY - 2);
    // All asked at once: the thread takes MAX_IN_HAND, the rest are worked here.
    const many = Array.from({ length: 2 * MAX_IN_HAND }, (_, n) => input(batchBody(20 + (n % 3))));
    const before = thread.answeredOnThread;
    expect(await Promise.all(many.map((each) => thread!.rows(each)))).toEqual(many.map((each) => captureRequestRows(each)));
    expect(thread.answeredOnThread - before).toBe(MAX_IN_HAND);
  });

  it('works every body of ALWAYS_OFFLOAD_BYTES or more on its thread, the INLINE_EVERY-th too', async () => {
    thread = new CaptureThread(pino({ level: 'silent' }));
    const huge = batchBody(5, { padding: 'x'.repeat(ALWAYS_OFFLOAD_BYTES / 4) });
    expect(workSize(huge)).toBeGreaterThanOrEqual(ALWAYS_OFFLOAD_BYTES);
    const inputs = Array.from({ length: 2 * INLINE_EVERY }, () => input(huge));
    expect(await Promise.all(inputs.map((each) => thread!.rows(each)))).toEqual(inputs.map((each) => captureRequestRows(each)));
    expect(thread.answeredOnThread).toBe(2 * INLINE_EVERY);
  });
});

describe('RequestThread', () => {
  it('gives no answer when its thread cannot start, so that the caller does the work', async () => {
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(String((JSON.parse(line) as { msg: string }).msg)) });
    const missing = new RequestThread<string, string>({ entry: new URL('./no-such-entry.js', import.meta.url), log, name: 'test thread' });
    expect(await missing.ask('anything')).toBeUndefined();
    expect(missing.pending).toBe(0);
    expect(warnings).toContain('test thread unavailable; the work is done without it');
    // Not tried again at once: a failed thread is retried a minute later.
    expect(await missing.ask('again')).toBeUndefined();
    expect(warnings.filter((w) => w.includes('unavailable'))).toHaveLength(1);
    await missing.close();
  });

  it('gives no answer to a question it cannot send, and answers the next one', async () => {
    const thread = new CaptureThread(pino({ level: 'silent' }));
    try {
      const large = input(batchBody(120));
      // A query value no thread can be sent (a function): worked where it arrived, the same answer.
      const unsendable = { ...large, query: { ...large.query, sent_at: (() => '1') as unknown as string } };
      expect(await thread.rows(unsendable)).toEqual(captureRequestRows(unsendable));
      expect(thread.answeredOnThread).toBe(0);
      expect(await thread.rows(large)).toEqual(captureRequestRows(large));
      expect(thread.answeredOnThread).toBe(1);
    } finally {
      await thread.close();
    }
  });
});
