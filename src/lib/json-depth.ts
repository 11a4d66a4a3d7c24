import { endOfString } from './json-array.js';

export const DEFAULT_MAX_JSON_DEPTH = 1000;

/** Scans brackets outside strings (each skipped at once, endOfString); O(n), no allocation. Short texts cannot be too deep. */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  if (text.length <= maxDepth) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = endOfString(text, i);
      if (i === -1) return false; // unterminated: JSON.parse rejects the text
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
