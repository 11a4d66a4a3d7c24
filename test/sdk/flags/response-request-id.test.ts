import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagsRequestId } from '../../../src/sdk/flags/request-id.js';
import { canonicalUuidStrict as canonicalUuid, randomUuidV4 } from '../../../src/lib/uuid.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { askFlags, createFlag } from '../../flags/flag-helpers.js';

/**
 * `requestId` (a UUID) and `evaluatedAt` (ms) in every `/decide` and `/flags` version, as every
 * response type of PostHog's flags service carries them (api/types.rs: DecideV1Response,
 * DecideV2Response, LegacyFlagsResponse, FlagsResponse); the id is the caller's X-Request-Id when
 * that is a UUID (endpoint.rs extract_request_id), else a random version 4 UUID.
 */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the request id', () => {
  it('reads the UUID forms a UUID parser takes, written lowercase and hyphenated', () => {
    const id = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    expect(canonicalUuid(id)).toBe(id);
    expect(canonicalUuid(id.toUpperCase())).toBe(id);
    expect(canonicalUuid(id.replaceAll('-', ''))).toBe(id);
    expect(canonicalUuid(`{${id}}`)).toBe(id);
    expect(canonicalUuid(`urn:uuid:${id}`)).toBe(id);
  });

  it('refuses anything else', () => {
    for (const text of [
      '',
      'abc',
      'req-123',
      '0190a1b2c3d4-7e5f-8a9b-0c1d2e3f4a5b0',
      `{${'0'.repeat(32)}}`,
      '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5g',
    ]) {
      expect(canonicalUuid(text), text).toBeNull();
    }
  });

  it('is a fresh v4 UUID without a usable X-Request-Id', () => {
    expect(flagsRequestId(undefined)).toMatch(UUID_V4);
    expect(flagsRequestId('not-a-uuid')).toMatch(UUID_V4);
    expect(flagsRequestId(undefined)).not.toBe(flagsRequestId(undefined));
  });

  it('makes fresh ids from fresh random bytes, past a batch of them', () => {
    const ids = Array.from({ length: 1000 }, () => randomUuidV4());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
    // Every random digit takes many values: none is stuck (the version digit, 14, and the variant's, 19, are fixed or 2-bit).
    for (let at = 0; at < 36; at++) {
      if ([8, 13, 14, 18, 19, 23].includes(at)) continue;
      expect(new Set(ids.map((id) => id[at])).size, `digit ${at}`).toBeGreaterThan(8);
    }
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(['8', '9', 'a', 'b']));
  });
});

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await createFlag(server, { key: 'everyone', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
});

afterAll(async () => {
  await server?.close();
});

describe('requestId and evaluatedAt in every response version', () => {
  const paths = ['/decide/', '/decide/?v=2', '/decide/?v=3', '/decide/?v=4', '/flags/?v=1', '/flags/?v=2', '/flags/'];

  it.each(paths)('%s', async (path) => {
    const before = Date.now();
    const body = await askFlags(server, path, { distinct_id: 'someone' });
    expect(body.featureFlags ?? body.flags, 'the flags are there').toBeDefined();
    expect(body.requestId).toMatch(UUID_V4);
    expect(body.evaluatedAt).toBeGreaterThanOrEqual(before);
    expect(body.evaluatedAt).toBeLessThanOrEqual(Date.now());
  });

  it('takes the caller X-Request-Id when it is a UUID', async () => {
    const id = '0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B';
    const legacy = await askFlags(server, '/decide/?v=3', { distinct_id: 'someone' }, { 'x-request-id': id });
    expect(legacy.requestId).toBe(id.toLowerCase());
    const detailed = await askFlags(server, '/flags/?v=2', { distinct_id: 'someone' }, { 'x-request-id': 'trace-42' });
    expect(detailed.requestId).toMatch(UUID_V4);
  });

  it('gives each request its own id', async () => {
    const [a, b] = await Promise.all([1, 2].map(() => askFlags(server, '/decide/?v=3', { distinct_id: 'someone' })));
    expect(a.requestId).not.toBe(b.requestId);
  });
});
