import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { freshStorage, type TestStorage } from '../helpers/backend.js';
import { runHoglet, type HogletProcess } from '../helpers/process.js';

/**
 * A 50 MB recording, posted in 1 MB chunks as posthog-js would over a long session, to a real
 * `hoglet serve` process whose JavaScript heap is capped below the recording's size: storing it
 * and reading it back must not hold it whole. Memory is a benchmark's to measure (`npm run bench`),
 * not a test's to bound: what is asserted is the behaviour that keeps it flat, every chunk stored
 * apart, the read-back streamed, the capped server alive throughout.
 */
const CHUNKS = Number(process.env.HOGLET_BIG_CHUNKS ?? 50);
const CHUNK_BYTES = 1024 * 1024;
const HEAP_CAP_MB = 48;
const KEY = `phx_${randomBytes(24).toString('hex')}`;

let storage: TestStorage | undefined;
let server: HogletProcess | undefined;

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await storage?.dispose();
});

/** About `bytes` of rrweb mutation events (incompressible text, as typed content would be). */
function chunkBody(token: string, sessionId: string, seq: number, bytes: number): string {
  const t0 = Date.now() - 60 * 60_000 + seq * 60_000;
  const events: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const text = randomBytes(1500).toString('base64');
    events.push({
      type: 3,
      timestamp: t0 + i,
      data: { source: 0, texts: [{ id: i, value: text }], attributes: [], removes: [], adds: [] },
    });
    size += text.length + 120;
  }
  if (seq === 0) events.unshift({ type: 4, timestamp: t0 - 1, data: { href: 'https://big.example/', width: 1, height: 1 } });
  return JSON.stringify([
    { event: '$snapshot', properties: { token, distinct_id: 'big', $session_id: sessionId, $window_id: 'w', $snapshot_data: events } },
  ]);
}

describe('a 50 MB recording', () => {
  it('is ingested and read back, streamed, by a server whose heap is smaller than it', { timeout: 300_000 }, async () => {
    storage = await freshStorage();
    server = runHoglet(['serve'], {
      ...storage.env,
      PORT: '0',
      HOST: '127.0.0.1',
      HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
      LOG_LEVEL: 'info',
      // A JavaScript heap smaller than the recording: holding it whole would crash the server.
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${HEAP_CAP_MB}`.trim(),
    });
    const [, url] = await server.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/);
    const auth = { authorization: `Bearer ${KEY}` };
    const project = ((await (await fetch(`${url}/api/projects/`, { headers: auth })).json()) as any).results[0];
    const env = `${url}/api/environments/${project.id}`;
    const sessionId = randomUUID();

    const post = (body: string) => fetch(`${url}/s/`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
    let sent = 0;
    for (let seq = 0; seq < CHUNKS; seq++) {
      const body = chunkBody(project.api_token, sessionId, seq, CHUNK_BYTES);
      sent += body.length;
      expect((await post(body)).status, `chunk ${seq}`).toBe(200);
    }

    const rec = (await (await fetch(`${env}/session_recordings/${sessionId}/`, { headers: auth })).json()) as any;
    expect(rec.start_url).toBe('https://big.example/');
    // Stored as the chunks it came in, each a block of its own.
    const { sources } = (await (await fetch(`${env}/session_recordings/${sessionId}/snapshots`, { headers: auth })).json()) as any;
    expect(sources).toHaveLength(CHUNKS);

    // Read everything back, 20 blocks per call as PostHog allows: streamed (chunked, no length
    // known up front, as an answer built whole would have), every byte arriving.
    let received = 0;
    let lines = 0;
    for (let start = 0; start < CHUNKS; start += 20) {
      const end = Math.min(start + 19, CHUNKS - 1);
      const res = await fetch(
        `${env}/session_recordings/${sessionId}/snapshots?source=blob_v2&start_blob_key=${start}&end_blob_key=${end}`,
        { headers: auth },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      expect(res.headers.get('content-length')).toBeNull();
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
        for (const byte of value) if (byte === 10) lines++;
      }
    }
    console.log(
      `[large recording] sent ${(sent / 1e6).toFixed(1)} MB in ${CHUNKS} chunks, read back ${(received / 1e6).toFixed(1)} MB (${lines} events)`,
    );
    expect(sent).toBeGreaterThan(50 * 1024 * 1024);
    expect(received).toBeGreaterThan(sent * 0.9);
    // The capped server went through it all: still running, healthy, no heap exhausted.
    expect((await fetch(`${url}/_health`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/heap out of memory|server process died/i);
  });
});
