/**
 * The bench's native set-rate client (bench/h2load.ts): h2load's per-request log read into the
 * same nearest-rank percentiles as the JavaScript client's, every answered request counted, and
 * a rate sent as independent arrivals, one h2load process per connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processRates, readH2loadLog } from '../../bench/h2load.js';
import { load } from '../../bench/harness.js';
import { LatencyRecorder } from '../../bench/latency-recorder.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { startStubServer, type StubServer } from './stub-server.js';

/** The value at percentile p of `values` by nearest rank: the smallest with at least p% at or below it. */
function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
}

describe('readH2loadLog', () => {
  it('reads every answered request to the microsecond, counting failures and answers other than 2xx', () => {
    const random = seededRandom(5);
    const rows: Array<{ start: number; status: number; micros: number }> = [];
    let start = 1_796_076_390_220_499;
    for (let i = 0; i < 2_345; i++) {
      const draw = random();
      // Mostly under a millisecond, a tail to 80 ms, as a loaded server's answers.
      const micros = draw < 0.97 ? 80 + Math.floor(random() * 900) : 1_000 + Math.floor(random() * 79_000);
      const status = i % 97 === 0 ? -1 : i % 41 === 0 ? 404 : 200;
      rows.push({ start, status, micros });
      start += 200 + Math.floor(random() * 40_000);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-h2load-test-'));
    try {
      const file = path.join(dir, 'connection.log');
      fs.writeFileSync(file, rows.map((r) => `${r.start}\t${r.status}\t${r.micros}\n`).join(''));
      const latencies = new LatencyRecorder();
      const reading = readH2loadLog(fs.readFileSync(file, 'utf8'), latencies);

      const answered = rows.filter((r) => r.status !== -1);
      expect(reading.answered).toBe(answered.length);
      expect(latencies.count).toBe(answered.length);
      expect(reading.errors).toBe(rows.length - answered.length);
      expect(reading.non2xx).toBe(answered.filter((r) => r.status !== 200).length);
      const ms = answered.map((r) => r.micros / 1000);
      for (const p of [0, 50, 90, 99, 99.9, 100]) expect(latencies.percentile(p)).toBe(nearestRank(ms, p));
      expect(reading.firstStartMicros).toBe(rows[0]!.start);
      expect(reading.lastEndMicros).toBe(Math.max(...rows.map((r) => r.start + r.micros)));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads how late each request left after its time: the first send plus a period for every one of its clients', () => {
    const random = seededRandom(9);
    const rate = 80;
    const clients = 4;
    const first = 1_700_000_000_000_000;
    // Mostly the timer's lateness under a millisecond, now and then a wait for a busy connection.
    const delaysMicros = Array.from({ length: 500 }, (_, k) =>
      k === 0 ? 0 : random() < 0.95 ? Math.floor(random() * 1_000) : 1_000 + Math.floor(random() * 3_000),
    );
    const starts = delaysMicros.map((delay, k) => first + Math.round((Math.floor(k / clients) * 1e6) / rate) + delay);
    // Rows as h2load writes them: by the end of the answer, not by the start.
    const rows = starts.map((start, k) => ({ start, micros: 300 + ((k * 7919) % 5_000) }));
    rows.sort((a, b) => a.start + a.micros - (b.start + b.micros));
    const log = rows.map((r) => `${r.start}\t200\t${r.micros}`).join('\n');
    const lateness = new LatencyRecorder();
    const fromDue = new LatencyRecorder();
    const reading = readH2loadLog(log, new LatencyRecorder(), { rate, clients, lateness, fromDue });
    expect(reading.answered).toBe(500);
    expect(reading.firstStartMicros).toBe(first);
    expect(lateness.count).toBe(500);
    // The delays stay under a period's 12.5 ms, so sorting the starts keeps each in its period.
    const expected = delaysMicros.map((delay) => delay / 1000);
    for (const p of [50, 90, 99, 100]) expect(lateness.percentile(p)).toBeCloseTo(nearestRank(expected, p), 2);
    // From the due time: the delay before the send plus the logged latency, request by request.
    const fromDueExpected = rows.map((r) => {
      const k = starts.indexOf(r.start);
      return delaysMicros[k]! / 1000 + r.micros / 1000;
    });
    expect(fromDue.count).toBe(500);
    for (const p of [50, 90, 99, 100]) expect(fromDue.percentile(p)).toBeCloseTo(nearestRank(fromDueExpected, p), 2);
  });

  it('refuses a row that is not one of h2load', () => {
    expect(() => readH2loadLog('1700000000000000\t200\n', new LatencyRecorder())).toThrow(/not an h2load log row/);
    expect(() => readH2loadLog('start\tstatus\tmicros\n', new LatencyRecorder())).toThrow(/not an h2load log row/);
  });
});

describe('processRates', () => {
  it('spreads a rate over the processes ±5% around their mean, adding up to it', () => {
    for (const [rate, processes] of [
      [10_700, 113],
      [400, 10],
      [100, 1],
    ] as const) {
      const rates = processRates(rate, processes);
      expect(rates).toHaveLength(processes);
      expect(rates.reduce((a, b) => a + b, 0)).toBeCloseTo(rate, 6);
      const mean = rate / processes;
      expect(Math.min(...rates)).toBeGreaterThanOrEqual(mean * 0.95 - 1e-9);
      expect(Math.max(...rates)).toBeLessThanOrEqual(mean * 1.05 + 1e-9);
      expect(new Set(rates).size).toBe(processes);
    }
  });
});

describe('load through h2load', () => {
  let stub: StubServer;
  beforeAll(async () => (stub = await startStubServer()));
  afterAll(() => stub.close());

  it('sends a set rate, each process its own body', async () => {
    stub.arrivals.length = 0;
    const bodies = Array.from({ length: 20 }, (_, i) => `{"user":${i}}`);
    const result = await load({ url: `${stub.url}/`, bodies, connections: 10, seconds: 2, rate: 400, openClient: 'h2load' });
    expect(result.errors).toBe(0);
    expect(result.non2xx).toBe(0);
    expect(result.lateSendP99).toBeGreaterThanOrEqual(0);
    // 800 requests, less those of the time a process started after the first (spawned ~2 ms apart).
    expect(stub.arrivals.length).toBeGreaterThan(500);
    expect(stub.arrivals.length).toBeLessThanOrEqual(800);
    // Ten connections, in three processes of four: each process its own body.
    expect(new Set(stub.arrivals)).toEqual(new Set(bodies.slice(0, 3)));
    expect(Number.isInteger(result.p50) && Number.isInteger(result.p99)).toBe(false);
    expect(result.p50).toBeLessThanOrEqual(result.p90);
    expect(result.p90).toBeLessThanOrEqual(result.p99);
  });

  it('counts answers other than 2xx', async () => {
    const result = await load({ url: `${stub.url}/missing`, body: '{}', connections: 5, seconds: 1, rate: 100, openClient: 'h2load' });
    expect(result.non2xx).toBeGreaterThan(50);
    expect(result.errors).toBe(0);
  });
});
