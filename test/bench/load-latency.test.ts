/**
 * The bench's latency figures (bench/harness.ts load, bench/open-load.ts, bench/latency-recorder.ts):
 * read to the microsecond, not in whole milliseconds as autocannon's histogram holds them, and a
 * set rate sent as independent arrivals, not as each connection's quota at the start of each second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from '../../bench/harness.js';
import { fmtMs, LATENCY_CHUNK, LatencyRecorder } from '../../bench/latency-recorder.js';
import { nextArrivalGapMicros, responseEnd } from '../../bench/open-load.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { startStubServer, type StubServer } from './stub-server.js';

describe('LatencyRecorder', () => {
  it('reads percentiles by nearest rank, to the microsecond', () => {
    const recorder = new LatencyRecorder();
    expect(recorder.percentile(99)).toBeNaN();
    // 10,000 values from 0.001 ms to 10 ms, recorded out of order.
    for (let i = 10_000; i >= 1; i--) recorder.record(i / 1000);
    expect(recorder.count).toBe(10_000);
    expect(recorder.percentile(50)).toBe(5);
    expect(recorder.percentile(99)).toBe(9.9);
    expect(recorder.percentile(0)).toBe(0.001);
    expect(recorder.percentile(100)).toBe(10);
    recorder.record(0.0004);
    expect(recorder.percentile(0)).toBe(0.0004);
    expect(() => recorder.record(-1)).toThrow(RangeError);
    expect(() => recorder.record(NaN)).toThrow(RangeError);
    expect(() => recorder.percentile(101)).toThrow(RangeError);
  });

  it('reads every chunk, the last one partly filled, and a value recorded after a read', () => {
    const recorder = new LatencyRecorder();
    // Two full chunks and a few more: 1 µs to n µs, shuffled so each chunk holds values of all sizes.
    const n = 2 * LATENCY_CHUNK + 3;
    const values = Array.from({ length: n }, (_, i) => (i + 1) / 1000);
    const random = seededRandom(11);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [values[i], values[j]] = [values[j]!, values[i]!];
    }
    for (const ms of values) recorder.record(ms);
    expect(recorder.count).toBe(n);
    // The k-th smallest is k µs: nearest rank k = ceil(p% of n).
    for (const p of [0, 1, 25, 50, 99, 99.99, 100]) {
      expect(recorder.percentile(p)).toBe(Math.max(1, Math.ceil((p / 100) * n)) / 1000);
    }
    // The largest value sits in the partly filled chunk when recorded last.
    recorder.record(n);
    expect(recorder.percentile(100)).toBe(n);
    expect(recorder.percentile(0)).toBe(0.001);
    expect(recorder.count).toBe(n + 1);
  });

  it('prints latencies to the hundredth of a millisecond', () => {
    expect(fmtMs(0.8412)).toBe('0.84');
    expect(fmtMs(2)).toBe('2.00');
    expect(fmtMs(NaN)).toBe('NaN');
  });
});

describe('responseEnd', () => {
  it('finds the end of a response by its length, its last chunk, or its head alone', () => {
    const sized = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
    expect(responseEnd(sized)).toEqual({ end: sized.length, status: 200 });
    expect(responseEnd(sized.subarray(0, sized.length - 1)).end).toBe(-1);
    expect(responseEnd(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n')).end).toBe(-1);
    const chunked = Buffer.from('HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\nHTTP/1.1');
    expect(responseEnd(chunked)).toEqual({ end: chunked.length - 'HTTP/1.1'.length, status: 404 });
    expect(responseEnd(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'))).toEqual({ end: 27, status: 204 });
  });
});

describe('nextArrivalGapMicros', () => {
  it('spreads a rate as independent arrivals, not as a quota at the start of each second', () => {
    const rate = 400;
    const random = seededRandom(7);
    const arrivalsAt: number[] = [];
    for (let at = 0; at < 20e6; at += nextArrivalGapMicros(rate, random)) arrivalsAt.push(at);
    // 20 s at 400/s: ~8,000 arrivals (Poisson, standard deviation ~89).
    expect(arrivalsAt.length).toBeGreaterThan(7_600);
    expect(arrivalsAt.length).toBeLessThan(8_400);
    const gaps = arrivalsAt.slice(1).map((at, i) => at - arrivalsAt[i]!);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps.length);
    // Exponential gaps: the standard deviation equals the mean (a quota sent at once: gaps of ~0 and one of ~1 s).
    expect(mean).toBeGreaterThan(2_400);
    expect(mean).toBeLessThan(2_600);
    expect(sd / mean).toBeGreaterThan(0.9);
    expect(sd / mean).toBeLessThan(1.1);
    // ~40 in every 100 ms window, none empty, none holding a second's quota.
    const windows = new Array<number>(200).fill(0);
    for (const at of arrivalsAt) windows[Math.floor(at / 100_000)]! += 1;
    expect(Math.min(...windows)).toBeGreaterThan(10);
    expect(Math.max(...windows)).toBeLessThan(80);
  });
});

describe('load', () => {
  let stub: StubServer;
  beforeAll(async () => (stub = await startStubServer()));
  afterAll(() => stub.close());

  it('reads saturated latencies finer than a millisecond', async () => {
    const result = await load({ url: `${stub.url}/`, body: '{}', connections: 4, seconds: 1 });
    expect(result.requestsPerSecond).toBeGreaterThan(0);
    expect(result.errors).toBe(0);
    // Whole milliseconds (autocannon's histogram) would read 0, 1, 2…: a float has a fraction.
    expect(Number.isInteger(result.p50) && Number.isInteger(result.p99)).toBe(false);
    expect(result.p99).toBeGreaterThanOrEqual(result.p50);
  });

  it('sends a set rate, each latency to the microsecond', async () => {
    stub.arrivals.length = 0;
    const rate = 400;
    const result = await load({
      url: `${stub.url}/`,
      bodies: ['{"a":1}', '{"a":2}'],
      connections: 50,
      seconds: 2,
      rate,
      openClient: 'node',
    });
    expect(result.errors).toBe(0);
    expect(result.non2xx).toBe(0);
    expect(Number.isInteger(result.p50) && Number.isInteger(result.p99)).toBe(false);
    // About 800 arrivals, whatever the machine does (the schedule is drawn, not timed; ±3 standard deviations is ±85).
    expect(stub.arrivals.length).toBeGreaterThan(650);
    expect(stub.arrivals.length).toBeLessThan(950);
  });

  it('counts answers other than 2xx', async () => {
    const result = await load({ url: `${stub.url}/missing`, body: '{}', connections: 5, seconds: 1, rate: 100, openClient: 'node' });
    expect(result.non2xx).toBeGreaterThan(50);
    expect(result.errors).toBe(0);
  });
});
