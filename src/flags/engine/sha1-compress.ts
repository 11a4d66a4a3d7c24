/**
 * The SHA-1 compression function (FIPS 180-4 §6.1.2) over one 64-byte block, written out round
 * by round. Bucketing computes a few dozen one-block SHA-1s per flags request; unrolled, the
 * sixteen-word message schedule lives in local variables instead of an 80-word array, which
 * halves the time per block in V8 against the looped form (docs/benchmarks.md).
 *
 * Round t reads the working variables rotated by t (so no values are moved between rounds):
 *   E = rotl5(A) + f_t(B, C, D) + E + K_t + w_t;  B = rotl30(B)
 * and from round 16 on first extends the schedule in place: w_t = rotl1(w_t-3 ^ w_t-8 ^ w_t-14 ^ w_t-16).
 */

const K1 = 0x5a827999;
const K2 = 0x6ed9eba1;
const K3 = 0x8f1bbcdc | 0;
const K4 = 0xca62c1d6 | 0;

function rotl5(x: number): number {
  return (x << 5) | (x >>> 27);
}

function rotl30(x: number): number {
  return (x << 30) | (x >>> 2);
}

/** Rounds 0-19: "choose" C or D by the bits of B. */
function ch(b: number, c: number, d: number): number {
  return d ^ (b & (c ^ d));
}

/** Rounds 40-59: bitwise majority. */
function maj(b: number, c: number, d: number): number {
  return (b & c) | (d & (b | c));
}

/** Compresses the block `block` (16 big-endian words) into the chaining state `state` (5 words). */
export function compressBlock(state: Int32Array, block: Int32Array): void {
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let w0 = block[0]!, w1 = block[1]!, w2 = block[2]!, w3 = block[3]!, w4 = block[4]!, w5 = block[5]!, w6 = block[6]!, w7 = block[7]!;
  let w8 = block[8]!, w9 = block[9]!, w10 = block[10]!, w11 = block[11]!, w12 = block[12]!, w13 = block[13]!, w14 = block[14]!, w15 = block[15]!;
  let x: number;
  e = (rotl5(a) + ch(b, c, d) + e + K1 + w0) | 0; b = rotl30(b);
  d = (rotl5(e) + ch(a, b, c) + d + K1 + w1) | 0; a = rotl30(a);
  c = (rotl5(d) + ch(e, a, b) + c + K1 + w2) | 0; e = rotl30(e);
  b = (rotl5(c) + ch(d, e, a) + b + K1 + w3) | 0; d = rotl30(d);
  a = (rotl5(b) + ch(c, d, e) + a + K1 + w4) | 0; c = rotl30(c);
  e = (rotl5(a) + ch(b, c, d) + e + K1 + w5) | 0; b = rotl30(b);
  d = (rotl5(e) + ch(a, b, c) + d + K1 + w6) | 0; a = rotl30(a);
  c = (rotl5(d) + ch(e, a, b) + c + K1 + w7) | 0; e = rotl30(e);
  b = (rotl5(c) + ch(d, e, a) + b + K1 + w8) | 0; d = rotl30(d);
  a = (rotl5(b) + ch(c, d, e) + a + K1 + w9) | 0; c = rotl30(c);
  e = (rotl5(a) + ch(b, c, d) + e + K1 + w10) | 0; b = rotl30(b);
  d = (rotl5(e) + ch(a, b, c) + d + K1 + w11) | 0; a = rotl30(a);
  c = (rotl5(d) + ch(e, a, b) + c + K1 + w12) | 0; e = rotl30(e);
  b = (rotl5(c) + ch(d, e, a) + b + K1 + w13) | 0; d = rotl30(d);
  a = (rotl5(b) + ch(c, d, e) + a + K1 + w14) | 0; c = rotl30(c);
  e = (rotl5(a) + ch(b, c, d) + e + K1 + w15) | 0; b = rotl30(b);
  x = w13 ^ w8 ^ w2 ^ w0; w0 = (x << 1) | (x >>> 31); d = (rotl5(e) + ch(a, b, c) + d + K1 + w0) | 0; a = rotl30(a);
  x = w14 ^ w9 ^ w3 ^ w1; w1 = (x << 1) | (x >>> 31); c = (rotl5(d) + ch(e, a, b) + c + K1 + w1) | 0; e = rotl30(e);
  x = w15 ^ w10 ^ w4 ^ w2; w2 = (x << 1) | (x >>> 31); b = (rotl5(c) + ch(d, e, a) + b + K1 + w2) | 0; d = rotl30(d);
  x = w0 ^ w11 ^ w5 ^ w3; w3 = (x << 1) | (x >>> 31); a = (rotl5(b) + ch(c, d, e) + a + K1 + w3) | 0; c = rotl30(c);
  x = w1 ^ w12 ^ w6 ^ w4; w4 = (x << 1) | (x >>> 31); e = (rotl5(a) + (b ^ c ^ d) + e + K2 + w4) | 0; b = rotl30(b);
  x = w2 ^ w13 ^ w7 ^ w5; w5 = (x << 1) | (x >>> 31); d = (rotl5(e) + (a ^ b ^ c) + d + K2 + w5) | 0; a = rotl30(a);
  x = w3 ^ w14 ^ w8 ^ w6; w6 = (x << 1) | (x >>> 31); c = (rotl5(d) + (e ^ a ^ b) + c + K2 + w6) | 0; e = rotl30(e);
  x = w4 ^ w15 ^ w9 ^ w7; w7 = (x << 1) | (x >>> 31); b = (rotl5(c) + (d ^ e ^ a) + b + K2 + w7) | 0; d = rotl30(d);
  x = w5 ^ w0 ^ w10 ^ w8; w8 = (x << 1) | (x >>> 31); a = (rotl5(b) + (c ^ d ^ e) + a + K2 + w8) | 0; c = rotl30(c);
  x = w6 ^ w1 ^ w11 ^ w9; w9 = (x << 1) | (x >>> 31); e = (rotl5(a) + (b ^ c ^ d) + e + K2 + w9) | 0; b = rotl30(b);
  x = w7 ^ w2 ^ w12 ^ w10; w10 = (x << 1) | (x >>> 31); d = (rotl5(e) + (a ^ b ^ c) + d + K2 + w10) | 0; a = rotl30(a);
  x = w8 ^ w3 ^ w13 ^ w11; w11 = (x << 1) | (x >>> 31); c = (rotl5(d) + (e ^ a ^ b) + c + K2 + w11) | 0; e = rotl30(e);
  x = w9 ^ w4 ^ w14 ^ w12; w12 = (x << 1) | (x >>> 31); b = (rotl5(c) + (d ^ e ^ a) + b + K2 + w12) | 0; d = rotl30(d);
  x = w10 ^ w5 ^ w15 ^ w13; w13 = (x << 1) | (x >>> 31); a = (rotl5(b) + (c ^ d ^ e) + a + K2 + w13) | 0; c = rotl30(c);
  x = w11 ^ w6 ^ w0 ^ w14; w14 = (x << 1) | (x >>> 31); e = (rotl5(a) + (b ^ c ^ d) + e + K2 + w14) | 0; b = rotl30(b);
  x = w12 ^ w7 ^ w1 ^ w15; w15 = (x << 1) | (x >>> 31); d = (rotl5(e) + (a ^ b ^ c) + d + K2 + w15) | 0; a = rotl30(a);
  x = w13 ^ w8 ^ w2 ^ w0; w0 = (x << 1) | (x >>> 31); c = (rotl5(d) + (e ^ a ^ b) + c + K2 + w0) | 0; e = rotl30(e);
  x = w14 ^ w9 ^ w3 ^ w1; w1 = (x << 1) | (x >>> 31); b = (rotl5(c) + (d ^ e ^ a) + b + K2 + w1) | 0; d = rotl30(d);
  x = w15 ^ w10 ^ w4 ^ w2; w2 = (x << 1) | (x >>> 31); a = (rotl5(b) + (c ^ d ^ e) + a + K2 + w2) | 0; c = rotl30(c);
  x = w0 ^ w11 ^ w5 ^ w3; w3 = (x << 1) | (x >>> 31); e = (rotl5(a) + (b ^ c ^ d) + e + K2 + w3) | 0; b = rotl30(b);
  x = w1 ^ w12 ^ w6 ^ w4; w4 = (x << 1) | (x >>> 31); d = (rotl5(e) + (a ^ b ^ c) + d + K2 + w4) | 0; a = rotl30(a);
  x = w2 ^ w13 ^ w7 ^ w5; w5 = (x << 1) | (x >>> 31); c = (rotl5(d) + (e ^ a ^ b) + c + K2 + w5) | 0; e = rotl30(e);
  x = w3 ^ w14 ^ w8 ^ w6; w6 = (x << 1) | (x >>> 31); b = (rotl5(c) + (d ^ e ^ a) + b + K2 + w6) | 0; d = rotl30(d);
  x = w4 ^ w15 ^ w9 ^ w7; w7 = (x << 1) | (x >>> 31); a = (rotl5(b) + (c ^ d ^ e) + a + K2 + w7) | 0; c = rotl30(c);
  x = w5 ^ w0 ^ w10 ^ w8; w8 = (x << 1) | (x >>> 31); e = (rotl5(a) + maj(b, c, d) + e + K3 + w8) | 0; b = rotl30(b);
  x = w6 ^ w1 ^ w11 ^ w9; w9 = (x << 1) | (x >>> 31); d = (rotl5(e) + maj(a, b, c) + d + K3 + w9) | 0; a = rotl30(a);
  x = w7 ^ w2 ^ w12 ^ w10; w10 = (x << 1) | (x >>> 31); c = (rotl5(d) + maj(e, a, b) + c + K3 + w10) | 0; e = rotl30(e);
  x = w8 ^ w3 ^ w13 ^ w11; w11 = (x << 1) | (x >>> 31); b = (rotl5(c) + maj(d, e, a) + b + K3 + w11) | 0; d = rotl30(d);
  x = w9 ^ w4 ^ w14 ^ w12; w12 = (x << 1) | (x >>> 31); a = (rotl5(b) + maj(c, d, e) + a + K3 + w12) | 0; c = rotl30(c);
  x = w10 ^ w5 ^ w15 ^ w13; w13 = (x << 1) | (x >>> 31); e = (rotl5(a) + maj(b, c, d) + e + K3 + w13) | 0; b = rotl30(b);
  x = w11 ^ w6 ^ w0 ^ w14; w14 = (x << 1) | (x >>> 31); d = (rotl5(e) + maj(a, b, c) + d + K3 + w14) | 0; a = rotl30(a);
  x = w12 ^ w7 ^ w1 ^ w15; w15 = (x << 1) | (x >>> 31); c = (rotl5(d) + maj(e, a, b) + c + K3 + w15) | 0; e = rotl30(e);
  x = w13 ^ w8 ^ w2 ^ w0; w0 = (x << 1) | (x >>> 31); b = (rotl5(c) + maj(d, e, a) + b + K3 + w0) | 0; d = rotl30(d);
  x = w14 ^ w9 ^ w3 ^ w1; w1 = (x << 1) | (x >>> 31); a = (rotl5(b) + maj(c, d, e) + a + K3 + w1) | 0; c = rotl30(c);
  x = w15 ^ w10 ^ w4 ^ w2; w2 = (x << 1) | (x >>> 31); e = (rotl5(a) + maj(b, c, d) + e + K3 + w2) | 0; b = rotl30(b);
  x = w0 ^ w11 ^ w5 ^ w3; w3 = (x << 1) | (x >>> 31); d = (rotl5(e) + maj(a, b, c) + d + K3 + w3) | 0; a = rotl30(a);
  x = w1 ^ w12 ^ w6 ^ w4; w4 = (x << 1) | (x >>> 31); c = (rotl5(d) + maj(e, a, b) + c + K3 + w4) | 0; e = rotl30(e);
  x = w2 ^ w13 ^ w7 ^ w5; w5 = (x << 1) | (x >>> 31); b = (rotl5(c) + maj(d, e, a) + b + K3 + w5) | 0; d = rotl30(d);
  x = w3 ^ w14 ^ w8 ^ w6; w6 = (x << 1) | (x >>> 31); a = (rotl5(b) + maj(c, d, e) + a + K3 + w6) | 0; c = rotl30(c);
  x = w4 ^ w15 ^ w9 ^ w7; w7 = (x << 1) | (x >>> 31); e = (rotl5(a) + maj(b, c, d) + e + K3 + w7) | 0; b = rotl30(b);
  x = w5 ^ w0 ^ w10 ^ w8; w8 = (x << 1) | (x >>> 31); d = (rotl5(e) + maj(a, b, c) + d + K3 + w8) | 0; a = rotl30(a);
  x = w6 ^ w1 ^ w11 ^ w9; w9 = (x << 1) | (x >>> 31); c = (rotl5(d) + maj(e, a, b) + c + K3 + w9) | 0; e = rotl30(e);
  x = w7 ^ w2 ^ w12 ^ w10; w10 = (x << 1) | (x >>> 31); b = (rotl5(c) + maj(d, e, a) + b + K3 + w10) | 0; d = rotl30(d);
  x = w8 ^ w3 ^ w13 ^ w11; w11 = (x << 1) | (x >>> 31); a = (rotl5(b) + maj(c, d, e) + a + K3 + w11) | 0; c = rotl30(c);
  x = w9 ^ w4 ^ w14 ^ w12; w12 = (x << 1) | (x >>> 31); e = (rotl5(a) + (b ^ c ^ d) + e + K4 + w12) | 0; b = rotl30(b);
  x = w10 ^ w5 ^ w15 ^ w13; w13 = (x << 1) | (x >>> 31); d = (rotl5(e) + (a ^ b ^ c) + d + K4 + w13) | 0; a = rotl30(a);
  x = w11 ^ w6 ^ w0 ^ w14; w14 = (x << 1) | (x >>> 31); c = (rotl5(d) + (e ^ a ^ b) + c + K4 + w14) | 0; e = rotl30(e);
  x = w12 ^ w7 ^ w1 ^ w15; w15 = (x << 1) | (x >>> 31); b = (rotl5(c) + (d ^ e ^ a) + b + K4 + w15) | 0; d = rotl30(d);
  x = w13 ^ w8 ^ w2 ^ w0; w0 = (x << 1) | (x >>> 31); a = (rotl5(b) + (c ^ d ^ e) + a + K4 + w0) | 0; c = rotl30(c);
  x = w14 ^ w9 ^ w3 ^ w1; w1 = (x << 1) | (x >>> 31); e = (rotl5(a) + (b ^ c ^ d) + e + K4 + w1) | 0; b = rotl30(b);
  x = w15 ^ w10 ^ w4 ^ w2; w2 = (x << 1) | (x >>> 31); d = (rotl5(e) + (a ^ b ^ c) + d + K4 + w2) | 0; a = rotl30(a);
  x = w0 ^ w11 ^ w5 ^ w3; w3 = (x << 1) | (x >>> 31); c = (rotl5(d) + (e ^ a ^ b) + c + K4 + w3) | 0; e = rotl30(e);
  x = w1 ^ w12 ^ w6 ^ w4; w4 = (x << 1) | (x >>> 31); b = (rotl5(c) + (d ^ e ^ a) + b + K4 + w4) | 0; d = rotl30(d);
  x = w2 ^ w13 ^ w7 ^ w5; w5 = (x << 1) | (x >>> 31); a = (rotl5(b) + (c ^ d ^ e) + a + K4 + w5) | 0; c = rotl30(c);
  x = w3 ^ w14 ^ w8 ^ w6; w6 = (x << 1) | (x >>> 31); e = (rotl5(a) + (b ^ c ^ d) + e + K4 + w6) | 0; b = rotl30(b);
  x = w4 ^ w15 ^ w9 ^ w7; w7 = (x << 1) | (x >>> 31); d = (rotl5(e) + (a ^ b ^ c) + d + K4 + w7) | 0; a = rotl30(a);
  x = w5 ^ w0 ^ w10 ^ w8; w8 = (x << 1) | (x >>> 31); c = (rotl5(d) + (e ^ a ^ b) + c + K4 + w8) | 0; e = rotl30(e);
  x = w6 ^ w1 ^ w11 ^ w9; w9 = (x << 1) | (x >>> 31); b = (rotl5(c) + (d ^ e ^ a) + b + K4 + w9) | 0; d = rotl30(d);
  x = w7 ^ w2 ^ w12 ^ w10; w10 = (x << 1) | (x >>> 31); a = (rotl5(b) + (c ^ d ^ e) + a + K4 + w10) | 0; c = rotl30(c);
  x = w8 ^ w3 ^ w13 ^ w11; w11 = (x << 1) | (x >>> 31); e = (rotl5(a) + (b ^ c ^ d) + e + K4 + w11) | 0; b = rotl30(b);
  x = w9 ^ w4 ^ w14 ^ w12; w12 = (x << 1) | (x >>> 31); d = (rotl5(e) + (a ^ b ^ c) + d + K4 + w12) | 0; a = rotl30(a);
  x = w10 ^ w5 ^ w15 ^ w13; w13 = (x << 1) | (x >>> 31); c = (rotl5(d) + (e ^ a ^ b) + c + K4 + w13) | 0; e = rotl30(e);
  x = w11 ^ w6 ^ w0 ^ w14; w14 = (x << 1) | (x >>> 31); b = (rotl5(c) + (d ^ e ^ a) + b + K4 + w14) | 0; d = rotl30(d);
  x = w12 ^ w7 ^ w1 ^ w15; w15 = (x << 1) | (x >>> 31); a = (rotl5(b) + (c ^ d ^ e) + a + K4 + w15) | 0; c = rotl30(c);
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
}
