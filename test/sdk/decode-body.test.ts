import { gzipSync } from 'node:zlib';

import lzString from 'lz-string';
import { describe, expect, it } from 'vitest';

import {
  BATCH_LIMITS,
  CAPTURE_LIMITS,
  DECIDE_LIMITS,
  type DecodeBodyInput,
  type DecodeBodyResult,
  compressionHint,
  decodeBody,
  jsonDepthExceeds,
  replaceNonFiniteLiterals,
} from '../../src/sdk/decode-body.js';

const event = { event: '$pageview', properties: { distinct_id: 'u1', token: 'phc_test', $current_url: 'https://é.example/ü?q=1+2' } };
const json = JSON.stringify([event]);

function decode(partial: Partial<DecodeBodyInput>): DecodeBodyResult {
  return decodeBody({ body: undefined, limits: CAPTURE_LIMITS, ...partial });
}

function expectOk(result: DecodeBodyResult) {
  if (!result.ok) throw new Error(`expected ok, got ${result.status} ${result.error.detail}`);
  return result;
}

function expectFailure(result: DecodeBodyResult, status: number, code: string) {
  if (result.ok) throw new Error(`expected failure ${status}, got ok`);
  expect(result.status).toBe(status);
  expect(result.error.code).toBe(code);
  expect(result.error.attr).toBeNull();
  expect(result.error.type).toBe(status === 413 ? 'invalid_request' : 'validation_error');
  return result;
}

describe('decodeBody: plain JSON', () => {
  it.each([['application/json'], ['application/json; charset=utf-8'], ['text/plain'], [undefined], ['']])(
    'reads a JSON body with content type %s',
    (contentType) => {
      const result = expectOk(decode({ body: Buffer.from(json), contentType }));
      expect(result.value).toEqual([event]);
      expect(result.compression).toBe('none');
      expect(result.source).toBe('body');
    },
  );

  it('accepts a string body and a non-Buffer Uint8Array body', () => {
    expect(expectOk(decode({ body: json })).value).toEqual([event]);
    const bytes = new Uint8Array(Buffer.from(`xx${json}`)).subarray(2);
    expect(expectOk(decode({ body: bytes })).value).toEqual([event]);
  });

  it('strips a UTF-8 byte order mark', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]);
    expect(expectOk(decode({ body })).value).toEqual({ a: 1 });
  });

  it('returns scalars as they are instead of mistaking them for base64', () => {
    expect(expectOk(decode({ body: '1234' })).value).toBe(1234);
    expect(expectOk(decode({ body: 'null' })).value).toBeNull();
  });

  it('reads NaN / Infinity / -Infinity literals as null but leaves them alone inside strings', () => {
    const body = '{"a":NaN,"b":Infinity,"c":-Infinity,"d":"NaN and Infinity","e":[1,NaN]}';
    expect(expectOk(decode({ body })).value).toEqual({ a: null, b: null, c: null, d: 'NaN and Infinity', e: [1, null] });
  });

  it('rejects malformed JSON with 400 invalid_payload', () => {
    const result = expectFailure(decode({ body: '{not json' }), 400, 'invalid_payload');
    expect(result.error.detail).toMatch(/^Malformed request data: Invalid JSON: /);
    expectFailure(decode({ body: '{"a":NaN' }), 400, 'invalid_payload');
    expectFailure(decode({ body: 'hello world' }), 400, 'invalid_payload');
  });

  it('rejects invalid UTF-8 with 400 (as capture-rs) rather than storing replacement characters', () => {
    const body = Buffer.concat([Buffer.from('{"event":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const result = expectFailure(decode({ body }), 400, 'invalid_payload');
    expect(result.error.detail).toContain('invalid UTF8');
    // An overlong encoding and a truncated multi-byte sequence are invalid too.
    expectFailure(decode({ body: Buffer.from([0x7b, 0xc0, 0xaf, 0x7d]) }), 400, 'invalid_payload');
    expectFailure(decode({ body: Buffer.concat([Buffer.from('["'), Buffer.from([0xe2, 0x82])]) }), 400, 'invalid_payload');
  });

  it('keeps lone surrogates written as JSON escapes (valid JSON) for storage to sanitise', () => {
    const value = expectOk(decode({ body: '{"a":"\\ud800"}' })).value as { a: string };
    expect(value.a).toBe('\ud800');
  });

  it('answers an empty body with 400 no_data', () => {
    expectFailure(decode({ body: Buffer.alloc(0) }), 400, 'no_data');
    expectFailure(decode({ body: null }), 400, 'no_data');
    expectFailure(decode({ body: undefined, query: { data: '' } }), 400, 'no_data');
  });

  it('reads a 10 MB string value within the batch limits', () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const body = Buffer.from(JSON.stringify({ event: 'e', properties: { big } }));
    const value = expectOk(decode({ body, limits: BATCH_LIMITS })).value as { properties: { big: string } };
    expect(value.properties.big.length).toBe(big.length);
    // The same body is over the single-event limit.
    expectFailure(decode({ body, limits: CAPTURE_LIMITS }), 413, 'payload_too_large');
  });
});

describe('decodeBody: size limits', () => {
  const limits = { maxBodyBytes: 100, maxDecompressedBytes: 1000 };

  it('rejects a body over the compressed limit with 413', () => {
    expectOk(decode({ body: Buffer.from(JSON.stringify({ a: 'x'.repeat(90) })), limits }));
    expectFailure(decode({ body: Buffer.from(JSON.stringify({ a: 'x'.repeat(100) })), limits }), 413, 'payload_too_large');
  });

  it('rejects a query data value over the limit with 413', () => {
    expectFailure(decode({ query: { data: 'x'.repeat(101) }, limits }), 413, 'payload_too_large');
  });

  it('rejects gzip that inflates past the decompressed cap with 413', () => {
    const body = gzipSync(JSON.stringify({ a: 'x'.repeat(2000) }));
    expect(body.length).toBeLessThan(100);
    expectFailure(decode({ body, limits }), 413, 'payload_too_large');
    expectOk(decode({ body: gzipSync(JSON.stringify({ a: 'x'.repeat(900) })), limits }));
  });

  it('stops a multi-gigabyte gzip bomb at the cap without inflating it', () => {
    // Concatenated gzip members inflate to the concatenation of their outputs, so 4096 copies
    // of "1 MiB of zeros" declare 4 GiB while costing ~4 MB to build.
    const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 4096 }, () => member));
    let declared = 0;
    for (let offset = member.length - 4; offset < bomb.length; offset += member.length) declared += bomb.readUInt32LE(offset);
    expect(declared).toBe(4 * 1024 ** 3);
    expect(bomb.length).toBeLessThan(BATCH_LIMITS.maxBodyBytes);

    // Inflated past the cap it would be 4 GiB of zeros: not JSON (a 400), if memory allowed it at all.
    const result = decode({ body: bomb, limits: { maxBodyBytes: BATCH_LIMITS.maxBodyBytes, maxDecompressedBytes: 8 * 1024 * 1024 } });
    expectFailure(result, 413, 'payload_too_large');
  });

  it('caps lz64 output too', () => {
    const data = lzString.compressToBase64(JSON.stringify({ a: 'y'.repeat(5000) }));
    const body = `data=${encodeURIComponent(data)}&compression=lz64`;
    expectFailure(
      decode({ body, contentType: 'application/x-www-form-urlencoded', limits: { maxBodyBytes: 10_000, maxDecompressedBytes: 1000 } }),
      413,
      'payload_too_large',
    );
  });

  it('exposes PostHog-sized presets', () => {
    expect(CAPTURE_LIMITS.maxBodyBytes).toBe(2 * 1024 * 1024);
    expect(BATCH_LIMITS.maxBodyBytes).toBe(20 * 1024 * 1024);
    expect(BATCH_LIMITS.maxDecompressedBytes).toBe(100 * 1024 * 1024);
    expect(DECIDE_LIMITS.maxDecompressedBytes).toBeLessThanOrEqual(BATCH_LIMITS.maxDecompressedBytes);
  });
});

describe('decodeBody: gzip', () => {
  const gz = gzipSync(json);

  it('gunzips with Content-Encoding: gzip (posthog-node)', () => {
    const result = expectOk(decode({ body: gz, contentType: 'application/json', contentEncoding: 'gzip' }));
    expect(result.value).toEqual([event]);
    expect(result.compression).toBe('gzip');
  });

  it.each([['gzip'], ['gzip-js'], ['GZIP-JS'], [['gzip-js', 'x']]])('gunzips with compression=%s', (compression) => {
    expect(expectOk(decode({ body: gz, contentType: 'text/plain', query: { compression } })).value).toEqual([event]);
  });

  it('sniffs gzip magic bytes when no hint is sent (posthog-js 2026)', () => {
    const result = expectOk(decode({ body: gz, contentType: 'text/plain' }));
    expect(result.value).toEqual([event]);
    expect(result.compression).toBe('gzip');
  });

  it('sniffs gzip even when sent with a form content type', () => {
    expect(expectOk(decode({ body: gz, contentType: 'application/x-www-form-urlencoded' })).value).toEqual([event]);
  });

  it('tolerates a gzip hint on a plain JSON body', () => {
    expect(expectOk(decode({ body: json, query: { compression: 'gzip-js' } })).value).toEqual([event]);
  });

  it('rejects a gzip hint on a body that is neither gzip nor JSON', () => {
    const result = expectFailure(decode({ body: 'definitely not gzip', query: { compression: 'gzip' } }), 400, 'invalid_payload');
    expect(result.error.detail).toContain('invalid GZIP data');
  });

  it('rejects truncated and corrupt gzip with 400', () => {
    expectFailure(decode({ body: gz.subarray(0, gz.length - 10) }), 400, 'invalid_payload');
    expectFailure(decode({ body: gz.subarray(0, 12) }), 400, 'invalid_payload');
    const corrupt = Buffer.from(gz);
    corrupt.fill(0xaa, 10, 30);
    expectFailure(decode({ body: corrupt }), 400, 'invalid_payload');
  });

  it('rejects gzip of invalid UTF-8 with 400', () => {
    const result = expectFailure(decode({ body: gzipSync(Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d])) }), 400, 'invalid_payload');
    expect(result.error.detail).toContain('invalid UTF8');
  });

  it('ignores unknown Content-Encoding values, as capture-rs does', () => {
    expect(expectOk(decode({ body: json, contentEncoding: 'br' })).value).toEqual([event]);
  });
});

describe('decodeBody: base64, forms, lz64 and GET', () => {
  const b64 = Buffer.from(json).toString('base64');
  const form = 'application/x-www-form-urlencoded';

  it('reads a raw base64 body', () => {
    const result = expectOk(decode({ body: b64, contentType: 'text/plain' }));
    expect(result.value).toEqual([event]);
    expect(result.compression).toBe('base64');
  });

  it('reads base64 of gzip', () => {
    expect(expectOk(decode({ body: gzipSync(json).toString('base64') })).value).toEqual([event]);
  });

  it('reads url-safe base64 and base64 without padding', () => {
    const urlSafe = b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    expect(expectOk(decode({ body: urlSafe })).value).toEqual([event]);
  });

  it('reads form data=JSON', () => {
    const result = expectOk(decode({ body: `data=${encodeURIComponent(json)}`, contentType: form }));
    expect(result.value).toEqual([event]);
    expect(result.source).toBe('form');
  });

  it('reads form data=base64 with compression=base64 (posthog-js base64 transport, old /decide)', () => {
    const body = `data=${encodeURIComponent(b64)}&compression=base64`;
    expect(expectOk(decode({ body, contentType: form, query: { compression: 'base64' } })).value).toEqual([event]);
  });

  it("restores '+' in base64 that form decoding turned into spaces", () => {
    const withPlus = Buffer.from('{"k":">>>???"}').toString('base64');
    expect(withPlus).toContain('+');
    // Unencoded '+' in a form body decodes to ' '.
    expect(expectOk(decode({ body: `data=${withPlus}`, contentType: form })).value).toEqual({ k: '>>>???' });
  });

  it('recognises a data= form sent as text/plain (old beacons)', () => {
    expect(expectOk(decode({ body: `data=${encodeURIComponent(b64)}`, contentType: 'text/plain' })).value).toEqual([event]);
    expect(expectOk(decode({ body: `ver=1.2&data=${encodeURIComponent(b64)}` })).value).toEqual([event]);
  });

  it('reads lz64 forms, hinted in the query or in the form', () => {
    const lz = lzString.compressToBase64(json);
    const viaQuery = expectOk(decode({ body: `data=${encodeURIComponent(lz)}`, contentType: form, query: { compression: 'lz64' } }));
    expect(viaQuery.value).toEqual([event]);
    expect(viaQuery.compression).toBe('lz64');
    const viaForm = expectOk(decode({ body: `compression=lz-string&data=${encodeURIComponent(lz)}`, contentType: form }));
    expect(viaForm.value).toEqual([event]);
    // Raw '+' turned into spaces by form decoding.
    expect(lz).toMatch(/\+/);
    expect(expectOk(decode({ body: `data=${lz}`, contentType: form, query: { compression: 'lz64' } })).value).toEqual([event]);
  });

  it('rejects lz64 that does not decompress', () => {
    const result = expectFailure(
      decode({ body: 'data=%21%21%21', contentType: form, query: { compression: 'lz64' } }),
      400,
      'invalid_payload',
    );
    expect(result.error.detail).toContain('lz64');
  });

  it('tolerates an lz64 hint on JSON data', () => {
    expect(expectOk(decode({ body: `data=${encodeURIComponent(json)}`, contentType: form, query: { compression: 'lz64' } })).value).toEqual(
      [event],
    );
  });

  it('reads a form content type carrying a JSON body as JSON', () => {
    expect(expectOk(decode({ body: json, contentType: form })).value).toEqual([event]);
  });

  it('rejects a form without data', () => {
    expectFailure(decode({ body: 'foo=bar&baz=1', contentType: form }), 400, 'invalid_payload');
  });

  it('reads GET ?data= as base64 or JSON, with + mangled to spaces', () => {
    const base64Result = expectOk(decode({ query: { data: b64, ver: '1.0', _: '1700000000000' } }));
    expect(base64Result.value).toEqual([event]);
    expect(base64Result.source).toBe('query');
    expect(expectOk(decode({ query: { data: json } })).value).toEqual([event]);
    const withPlus = Buffer.from('{"k":">>>???"}').toString('base64');
    expect(expectOk(decode({ query: { data: withPlus.replace(/\+/g, ' ') } })).value).toEqual({ k: '>>>???' });
  });

  it('prefers a non-empty query data over the body, as PostHog does', () => {
    expect(expectOk(decode({ body: '{"from":"body"}', query: { data: '{"from":"query"}' } })).value).toEqual({ from: 'query' });
  });
});

describe('decodeBody: robustness', () => {
  it('never throws, even when the inputs misbehave', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    const result = decodeBody({ body: '{}', query: hostile as Record<string, string>, limits: CAPTURE_LIMITS });
    expectFailure(result, 400, 'invalid_payload');
  });

  it('peels base64-of-gzip layers but stops after a bounded number of them', () => {
    const json = '{"deep":true}';
    const layered = (rounds: number) => {
      let bytes = gzipSync(json);
      for (let i = 1; i < rounds; i++) bytes = gzipSync(bytes.toString('base64'));
      return bytes;
    };
    expect(expectOk(decode({ body: layered(2) })).value).toEqual({ deep: true });
    const result = expectFailure(decode({ body: layered(3) }), 400, 'invalid_payload');
    expect(result.error.detail).toContain('too many encoding layers');
  });

  it('takes the first value of repeated query keys', () => {
    const b64 = Buffer.from('{"a":1}').toString('base64');
    expect(expectOk(decode({ query: { data: [b64, 'ignored'] } })).value).toEqual({ a: 1 });
  });

  it('reads a raw base64 body sent with a form content type', () => {
    const b64 = Buffer.from('{"a":1}').toString('base64');
    expect(expectOk(decode({ body: b64, contentType: 'application/x-www-form-urlencoded' })).value).toEqual({ a: 1 });
  });
});

describe('decodeBody: nesting', () => {
  it('rejects JSON nested deeper than the limit and accepts it at the limit', () => {
    const limits = { ...CAPTURE_LIMITS, maxDepth: 50 };
    expectOk(decode({ body: '['.repeat(50) + ']'.repeat(50), limits }));
    const result = expectFailure(decode({ body: '['.repeat(51) + ']'.repeat(51), limits }), 400, 'invalid_payload');
    expect(result.error.detail).toContain('deeper than 50');
  });

  it('rejects 100 000 levels with the default limit without overflowing the stack', () => {
    expectFailure(decode({ body: '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000), limits: BATCH_LIMITS }), 400, 'invalid_payload');
  });

  it('does not count brackets inside strings', () => {
    const body = JSON.stringify({ s: '[[[[{{{{\\"[[[['.repeat(100) });
    expectOk(decode({ body, limits: { ...CAPTURE_LIMITS, maxDepth: 3 } }));
  });
});

describe('decodeBody helpers', () => {
  it('maps compression spellings', () => {
    expect(compressionHint('gzip')).toBe('gzip');
    expect(compressionHint(' Gzip-JS ')).toBe('gzip');
    expect(compressionHint('x-gzip')).toBe('gzip');
    expect(compressionHint('lz64')).toBe('lz64');
    expect(compressionHint('lz-string')).toBe('lz64');
    expect(compressionHint('base64')).toBe('base64');
    expect(compressionHint('b64')).toBe('base64');
    expect(compressionHint('br')).toBeUndefined();
    expect(compressionHint(undefined)).toBeUndefined();
  });

  it('measures depth outside strings only', () => {
    expect(jsonDepthExceeds('[[[]]]', 2)).toBe(true);
    expect(jsonDepthExceeds('[[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('["[[[[[["]', 2)).toBe(false);
    expect(jsonDepthExceeds('["\\"[[[[[["]', 2)).toBe(false);
    // A string ending in an escaped backslash ends at its quote; the brackets after it count.
    expect(jsonDepthExceeds('["\\\\",[[[]]]]', 3)).toBe(true);
    expect(jsonDepthExceeds('["\\\\\\"[[[[",[]]', 2)).toBe(false);
    expect(jsonDepthExceeds('{"k\\\\":{"v":[["\\\\"]]}}', 3)).toBe(true);
  });

  it('measures the depth JSON.parse finds, on generated documents', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = ['"', '\\', '\\"', '[', ']', '{', '}', 'x', ' '];
    const text = () => Array.from({ length: Math.floor(random() * 6) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
    const build = (depth: number): unknown => {
      if (depth === 0 || random() < 0.2) return random() < 0.5 ? text() : Math.floor(random() * 100);
      const items = Array.from({ length: 1 + Math.floor(random() * 3) }, () => build(depth - 1));
      return random() < 0.5 ? items : Object.fromEntries(items.map((v, i) => [`${text()}${i}`, v]));
    };
    const depthOf = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
    for (let n = 0; n < 500; n++) {
      const value = build(1 + Math.floor(random() * 8));
      const json = JSON.stringify(value);
      const depth = depthOf(JSON.parse(json));
      expect(jsonDepthExceeds(json, depth - 1) || json.length <= depth - 1, json).toBe(depth > 0);
      expect(jsonDepthExceeds(json, depth), json).toBe(false);
    }
  });

  it('rewrites non-finite literals only outside strings', () => {
    expect(replaceNonFiniteLiterals('[NaN,-Infinity,Infinity,"NaN"]')).toBe('[null,null,null,"NaN"]');
    expect(replaceNonFiniteLiterals('{"a\\"NaN":1}')).toBe('{"a\\"NaN":1}');
  });
});
