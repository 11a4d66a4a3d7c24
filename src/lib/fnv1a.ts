/**
 * FNV-1a, 32 bits, of a text's UTF-8 bytes (a lone surrogate counts as U+FFFD, as TextEncoder
 * writes it): a fast, well-spread hash that is the same in every process and language. Bytes are
 * hashed as they are encoded, with no buffer built. Pure.
 */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The hash, as an unsigned 32-bit integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      hash = Math.imul(hash ^ code, FNV_PRIME);
      continue;
    }
    if (code < 0x800) {
      hash = Math.imul(hash ^ (0xc0 | (code >> 6)), FNV_PRIME);
      hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), FNV_PRIME);
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
        hash = Math.imul(hash ^ (0xf0 | (code >> 18)), FNV_PRIME);
        hash = Math.imul(hash ^ (0x80 | ((code >> 12) & 0x3f)), FNV_PRIME);
        hash = Math.imul(hash ^ (0x80 | ((code >> 6) & 0x3f)), FNV_PRIME);
        hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), FNV_PRIME);
        continue;
      }
      code = 0xfffd; // a lone surrogate
    }
    hash = Math.imul(hash ^ (0xe0 | (code >> 12)), FNV_PRIME);
    hash = Math.imul(hash ^ (0x80 | ((code >> 6) & 0x3f)), FNV_PRIME);
    hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), FNV_PRIME);
  }
  return hash >>> 0;
}
