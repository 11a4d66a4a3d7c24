/**
 * SHA-1 (FIPS 180-4) of a short text, returning only the first 64 digest bits as two 32-bit
 * words. Bucketing hashes a few dozen short strings per request; node:crypto spends most of its
 * time per call on setup (algorithm lookup, a native round trip, a Buffer), which for one-block
 * inputs costs several times the compression itself. This computes the same digest in plain
 * JavaScript over reused scratch memory; the contract corpus's hash vectors (corpus-hash test)
 * pin its output through hashing.ts.
 */

const block = new Int32Array(80);
/** The padded message as big-endian 32-bit words; grown on demand. */
let message = new Int32Array(64);
/** UTF-8 bytes of non-ASCII messages; grown on demand. */
let bytes = new Uint8Array(256);
const encoder = new TextEncoder();

function rotl(x: number, n: number): number {
  return (x << n) | (x >>> (32 - n));
}

/** Packs the UTF-8 message into `message`, padded; returns the number of words. */
function load(text: string): number {
  let length = text.length;
  // Room for the worst case (3 UTF-8 bytes per UTF-16 unit) plus padding, zeroed.
  const capacity = (((length * 3 + 8) >> 6) + 1) << 4;
  if (message.length < capacity) message = new Int32Array(capacity);
  message.fill(0, 0, capacity);
  let ascii = true;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) {
      ascii = false;
      break;
    }
    message[i >> 2]! |= c << ((3 - (i & 3)) << 3);
  }
  if (!ascii) {
    // Lone surrogates become U+FFFD, the same well-formed UTF-8 node:crypto hashes for strings.
    if (bytes.length < length * 3) bytes = new Uint8Array(length * 3);
    length = encoder.encodeInto(text, bytes).written;
    message.fill(0, 0, capacity);
    for (let i = 0; i < length; i++) message[i >> 2]! |= bytes[i]! << ((3 - (i & 3)) << 3);
  }
  // Padding: a 1 bit, zeros up to 56 mod 64 bytes, then the bit length as a 64-bit big-endian number.
  message[length >> 2]! |= 0x80 << ((3 - (length & 3)) << 3);
  const words = (((length + 8) >> 6) + 1) << 4;
  const bits = length * 8;
  message[words - 2] = Math.floor(bits / 2 ** 32);
  message[words - 1] = bits | 0;
  return words;
}

/** The first two big-endian 32-bit words of SHA-1(UTF-8 of `text`), as unsigned numbers. */
export function sha1FirstWords(text: string): [number, number] {
  const words = load(text);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let offset = 0; offset < words; offset += 16) {
    for (let t = 0; t < 16; t++) block[t] = message[offset + t]!;
    for (let t = 16; t < 80; t++) block[t] = rotl(block[t - 3]! ^ block[t - 8]! ^ block[t - 14]! ^ block[t - 16]!, 1);
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    // Four loops rather than one with a branch per round: the round function changes every 20.
    let t = 0;
    for (; t < 20; t++) {
      const temp = (rotl(a, 5) + ((b & c) | (~b & d)) + e + 0x5a827999 + block[t]!) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    for (; t < 40; t++) {
      const temp = (rotl(a, 5) + (b ^ c ^ d) + e + 0x6ed9eba1 + block[t]!) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    for (; t < 60; t++) {
      const temp = (rotl(a, 5) + ((b & c) | (b & d) | (c & d)) + e + (0x8f1bbcdc | 0) + block[t]!) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    for (; t < 80; t++) {
      const temp = (rotl(a, 5) + (b ^ c ^ d) + e + (0xca62c1d6 | 0) + block[t]!) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return [h0 >>> 0, h1 >>> 0];
}
