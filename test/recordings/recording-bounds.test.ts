import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fullSnapshot, meta, newSessionId, postSnapshots, snapshotEvent } from './helpers.js';

/** RECORDING_MAX_BYTES bounds a recording request after decompression, and as sent. */
const BOUND = 64 * 1024;

let bounded: TestServer;
let defaults: TestServer;
beforeAll(async () => {
  bounded = await startTestServer({ RECORDING_MAX_BYTES: String(BOUND) });
  defaults = await startTestServer();
});
afterAll(async () => {
  await bounded?.close();
  await defaults?.close();
});

/** A snapshot request of about `bytes` bytes of JSON (a full snapshot with a large text node). */
function snapshotBody(server: TestServer, sessionId: string, bytes: number): string {
  const big = {
    ...fullSnapshot(1_700_000_000_100),
    data: { node: { type: 3, id: 1, textContent: 'x'.repeat(bytes) }, initialOffset: { left: 0, top: 0 } },
  };
  return JSON.stringify([snapshotEvent(server.bootstrap.team.apiToken, sessionId, [meta(1_700_000_000_000, 'https://a.test/'), big])]);
}

async function recordingExists(server: TestServer, sessionId: string): Promise<boolean> {
  const res = await server.request(`/api/environments/${server.bootstrap.team.id}/session_recordings/${sessionId}/`);
  return res.status === 200;
}

describe('the recording request bound', () => {
  it('stores a request within RECORDING_MAX_BYTES, plain or gzip', async () => {
    for (const encode of [(text: string) => text, (text: string) => gzipSync(text)]) {
      const sessionId = newSessionId();
      const res = await postSnapshots(bounded, encode(snapshotBody(bounded, sessionId, BOUND / 2)));
      expect(res.status).toBe(200);
      expect(await recordingExists(bounded, sessionId)).toBe(true);
    }
  });

  it('refuses a larger one with 413 in the envelope, plain or gzip, and stores nothing of it', async () => {
    for (const encode of [(text: string) => text, (text: string) => gzipSync(text)]) {
      const sessionId = newSessionId();
      const body = encode(snapshotBody(bounded, sessionId, BOUND * 2));
      const res = await postSnapshots(bounded, body);
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ type: 'invalid_request', code: 'payload_too_large', attr: null });
      expect(typeof res.body.detail).toBe('string');
      expect(await recordingExists(bounded, sessionId)).toBe(false);
    }
  });

  it('refuses by default a 90 MB snapshot that arrives as a small gzip body', async () => {
    const sessionId = newSessionId();
    const body = gzipSync(snapshotBody(defaults, sessionId, 90 * 1024 * 1024));
    expect(body.length).toBeLessThan(1024 * 1024);
    const res = await postSnapshots(defaults, body);
    expect(res.status).toBe(413);
    expect(await recordingExists(defaults, sessionId)).toBe(false);
  });
});
