/**
 * SHA-1 (FIPS 180-4) of a message made of three texts, returning only the first 64 digest bits.
 * Bucketing hashes `<flag key>.` + identifier + salt a few dozen times per flags request, for
 * the same few identifiers and the same flag keys over and over. node:crypto spends most of its
 * time per call on setup (algorithm lookup, a native round trip, a Buffer), several times the
 * compression itself, so this is plain JavaScript over reused scratch memory: each text is
 * UTF-8-encoded and packed into big-endian words once (PackedText, kept by the caller or in a
 * small memo), and a one-block message is assembled by OR-ing those words into place. The
 * contract corpus's hash vectors (corpus-hash test) pin the output through hashing.ts.
 */
import { compressBlock } from './sha1-compress.js';

/**
 * A text's UTF-8 bytes as big-endian words, laid out for each byte offset (0-3) within a word:
 * section k (`stride` words from `k * stride`) holds the words of the text when its first byte
 * is byte k of a word. One typed array, not one per offset: a request packs its distinct id
 * afresh, and each typed array is an allocation of its own.
 */
export class PackedText {
  constructor(
    readonly text: string,
    /** UTF-8 length in bytes. */
    readonly length: number,
    readonly words: Int32Array,
    readonly stride: number,
  ) {}
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/** Encodes and packs a text. Lone surrogates become U+FFFD, as node:crypto hashes strings. */
export function packText(text: string): PackedText {
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  const length = encoder.encodeInto(text, scratch).written;
  // Enough words for the text at offset 3, the longest layout.
  const stride = (length + 6) >> 2;
  const words = new Int32Array(stride * 4);
  for (let offset = 0; offset < 4; offset++) {
    const base = offset * stride;
    for (let i = 0; i < length; i++) {
      const at = offset + i;
      words[base + (at >> 2)]! |= scratch[i]! << ((3 - (at & 3)) << 3);
    }
  }
  return new PackedText(text, length, words, stride);
}

/** The text's bytes, read back from its offset-0 words (long messages only). */
function bytesOf(text: PackedText): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = (text.words[i >> 2]! >>> ((3 - (i & 3)) << 3)) & 0xff;
  return bytes;
}

const block = new Int32Array(16);
const state = new Int32Array(5);

function resetState(): void {
  state[0] = 0x67452301;
  state[1] = 0xefcdab89 | 0;
  state[2] = 0x98badcfe | 0;
  state[3] = 0x10325476;
  state[4] = 0xc3d2e1f0 | 0;
}

/** ORs a packed text into `block` starting at byte `at` (the caller guarantees it fits). */
function place(text: PackedText, at: number): void {
  const words = text.words;
  const offset = at & 3;
  const base = offset * text.stride;
  const count = (offset + text.length + 3) >> 2;
  const first = at >> 2;
  for (let i = 0; i < count; i++) block[first + i]! |= words[base + i]!;
}

/** Messages longer than one block (long identifiers): the bytes in order, padded, block by block. */
function hashLongMessage(parts: readonly PackedText[], length: number): void {
  const blocks = ((length + 8) >> 6) + 1;
  const padded = new Uint8Array(blocks * 64);
  let at = 0;
  for (const part of parts) {
    padded.set(bytesOf(part), at);
    at += part.length;
  }
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor((length * 8) / 2 ** 32));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) block[i] = view.getInt32(offset + i * 4);
    compressBlock(state, block);
  }
}

/**
 * The first two big-endian words of SHA-1(a ‖ b ‖ c), unsigned, written to `out` (no array is
 * allocated per hash: this runs dozens of times per request).
 */
export function sha1Head(a: PackedText, b: PackedText, c: PackedText, out: Uint32Array): void {
  const length = a.length + b.length + c.length;
  resetState();
  if (length > 55) {
    hashLongMessage([a, b, c], length);
  } else {
    // The first text starts the block: copied, not OR-ed; the words after it are cleared.
    const first = a.words;
    const count = (a.length + 3) >> 2;
    let word = 0;
    for (; word < count; word++) block[word] = first[word]!;
    for (; word < 16; word++) block[word] = 0;
    place(b, a.length);
    place(c, a.length + b.length);
    // Padding: a 1 bit right after the message, then the bit length in the last word (< 2^32 here).
    block[length >> 2]! |= 0x80 << ((3 - (length & 3)) << 3);
    block[15] = length * 8;
    compressBlock(state, block);
  }
  out[0] = state[0]!;
  out[1] = state[1]!;
}
