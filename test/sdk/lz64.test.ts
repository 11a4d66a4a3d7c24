import lzString from 'lz-string';
import { describe, expect, it } from 'vitest';
import { decompressLz64 } from '../../src/sdk/lz64.js';
import { decodeBody, CAPTURE_LIMITS } from '../../src/sdk/decode-body.js';

/** lz-string's own compressor is the oracle: whatever it writes, the bounded decoder must read back. */
function randomText(length: number, seed: number): string {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
  let text = '';
  for (let i = 0; i < length; i++) {
    text += next() < 0.85 ? 'ab{}":,ev01 '[Math.floor(next() * 12)]! : String.fromCharCode(0x20 + Math.floor(next() * 0xd700));
  }
  return text;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';

/**
 * The worst bomb for a decoder: after one literal, every code names the entry about to be made,
 * so each entry is one character longer than the last and `codes` codes expand to about
 * codes² / 2 characters. Written bit for bit as lz-string writes (least significant bit first,
 * six bits a character, the code width growing with the dictionary).
 */
function growingBomb(codes: number): string {
  let out = '';
  let char = 0;
  let bits = 0;
  const write = (value: number, width: number) => {
    for (let n = 0; n < width; n++) {
      if ((value >> n) & 1) char |= 32 >> bits;
      if (++bits === 6) {
        out += ALPHABET[char];
        char = 0;
        bits = 0;
      }
    }
  };
  write(0, 2);
  write(0x78, 8);
  let entries = 4;
  let width = 3;
  let untilWider = 4;
  for (let i = 0; i < codes; i++) {
    write(entries++, width);
    if (--untilWider === 0) untilWider = 2 ** width++;
  }
  write(2, width);
  return bits ? out + ALPHABET[char] : out;
}

describe('bounded lz64 decoding', () => {
  it('decodes the growing bomb exactly when it fits', () => {
    const result = decompressLz64(growingBomb(100), 1_000_000);
    // 1 + 2 + … + 101 characters, all of them the literal.
    expect(result).toEqual({ ok: true, text: 'x'.repeat((101 * 102) / 2) });
    expect(decompressLz64(growingBomb(100), (101 * 102) / 2 - 1)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('refuses a bomb of billions of characters at the cap', () => {
    // ~5 × 10^9 characters: more than a string or a typed array can hold, so a decoder that writes
    // before it counts fails here instead of answering.
    const bomb = growingBomb(100_000);
    expect(bomb.length).toBeLessThan(400_000);
    expect(decompressLz64(bomb, 2 ** 31)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('keeps lone surrogates as they were written', () => {
    const text = 'a\ud800b\udc00c\ud83d\ude00' + '\udbff'.repeat(50);
    expect(decompressLz64(lzString.compressToBase64(text), 10_000)).toEqual({ ok: true, text });
  });

  it('reads back what lz-string writes, for many texts', () => {
    const texts = [
      'a',
      'hello world',
      'x'.repeat(10_000),
      JSON.stringify([{ event: '$pageview', properties: { token: 'phc_x', distinct_id: 'ü 日本 🎉' } }]),
    ];
    for (let i = 0; i < 500; i++) texts.push(randomText(1 + ((i * 37) % 900), i + 1));
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
