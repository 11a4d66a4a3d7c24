import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { packText, sha1Head } from '../../src/flags/engine/sha1.js';

/** node:crypto's first two digest words of a ‖ b ‖ c. */
function reference(a: string, b: string, c: string): [number, number] {
  const digest = createHash('sha1')
    .update(a + b + c, 'utf8')
    .digest();
  return [digest.readUInt32BE(0), digest.readUInt32BE(4)];
}

function head(a: string, b: string, c: string): [number, number] {
  const out = new Uint32Array(2);
  sha1Head(packText(a), packText(b), packText(c), out);
  return [out[0]!, out[1]!];
}

// Texts of every length from 0 to 130 bytes of ASCII and multi-byte characters, so each part
// lands at every byte offset within a word, on both sides of the one-block limit (55 bytes).
const ASCII = 'abcdefghijklmnopqrstuvwxyz0123456789-._ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const WIDE = ['é', '☃', '😀', 'ß'];

function textOf(bytes: number, seed: number): string {
  let text = '';
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const wide = WIDE[(seed + i) % WIDE.length]!;
    const size = Buffer.byteLength(wide);
    if ((seed + i) % 3 === 0 && length + size <= bytes) {
      text += wide;
      length += size;
    } else {
      text += ASCII[(seed * 7 + i) % ASCII.length];
      length += 1;
    }
  }
  return text;
}

describe('sha1Head', () => {
  it('agrees with node:crypto for every split of messages up to 130 bytes', () => {
    let checked = 0;
    for (let total = 0; total <= 130; total++) {
      for (let first = 0; first <= total; first += 3) {
        for (let second = 0; first + second <= total; second += 5) {
          const a = textOf(first, total);
          const b = textOf(second, first + 1);
          const c = textOf(total - first - second, second + 2);
          expect(head(a, b, c), JSON.stringify([a, b, c])).toEqual(reference(a, b, c));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it('hashes a lone surrogate as U+FFFD, as node:crypto hashes strings', () => {
    expect(head('flag.', '\ud800x', 'variant')).toEqual(reference('flag.', '\ufffdx', 'variant'));
  });
});
