import lzString from 'lz-string';
import { describe, expect, it } from 'vitest';
import { decompressLz64 } from '../../src/ingestion/core/lz64.js';
import { decodeBody, CAPTURE_LIMITS } from '../../src/ingestion/core/decode-body.js';

/** lz-string's own compressor is the oracle: whatever it writes, the bounded decoder must read back. */
function randomText(length: number, seed: number): string {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
  let text = '';
  for (let i = 0; i < length; i++) {
    text += next() < 0.85 ? 'ab{}":,ev01 '[Math.floor(next() * 12)]! : String.fromCharCode(0x20 + Math.floor(next() * 0xd700));
  }
  return text;
}

describe('bounded lz64 decoding', () => {
  it('reads back what lz-string writes, for many texts', () => {
    const texts = ['a', 'hello world', 'x'.repeat(10_000), JSON.stringify([{ event: '$pageview', properties: { token: 'phc_x', distinct_id: 'ü 日本 🎉' } }])];
    for (let i = 0; i < 500; i++) texts.push(randomText(1 + (i * 37) % 900, i + 1));
    for (const text of texts) {
      const result = decompressLz64(lzString.compressToBase64(text), 10_000_000);
      expect(result).toEqual({ ok: true, text });
    }
  });

  it('stops at the cap instead of expanding a tiny body without limit', () => {
    const bomb = lzString.compressToBase64('x'.repeat(1_000_000));
    expect(bomb.length).toBeLessThan(5_000);
    expect(decompressLz64(bomb, 200_000)).toEqual({ ok: false, reason: 'too_large' });
    expect(decompressLz64(bomb, 1_000_000)).toMatchObject({ ok: true });
  });

  it('rejects what is not lz-string base64', () => {
    for (const bad of ['', '!!!!', 'AAAA', lzString.compressToBase64('hello').slice(0, 3), '%%%%%%%%']) {
      expect(decompressLz64(bad, 1000).ok, bad).toBe(false);
    }
  });

  it('answers 413 through decodeBody for an lz64 bomb', () => {
    const data = lzString.compressToBase64('[' + '1,'.repeat(500_000) + '1]');
    const result = decodeBody({
      body: Buffer.from(`data=${encodeURIComponent(data)}`),
      contentType: 'application/x-www-form-urlencoded',
      query: { compression: 'lz64' },
      limits: { ...CAPTURE_LIMITS, maxDecompressedBytes: 256 * 1024 },
    });
    expect(result).toMatchObject({ ok: false, status: 413 });
  });
});
