import { describe, expect, it } from 'vitest';

import { isValidUuid, normalizeUuid, uuidv7 } from '../../src/ingestion/core/uuid.js';

describe('uuid helpers', () => {
  it('validates the canonical form', () => {
    expect(isValidUuid('0190a3c5-7e1f-7d4a-9a3b-1234567890ab')).toBe(true);
    expect(isValidUuid('0190A3C5-7E1F-7D4A-9A3B-1234567890AB')).toBe(true);
    expect(isValidUuid('0190a3c57e1f7d4a9a3b1234567890ab')).toBe(false);
    expect(isValidUuid('0190a3c5-7e1f-7d4a-9a3b-1234567890a')).toBe(false);
    expect(isValidUuid('g190a3c5-7e1f-7d4a-9a3b-1234567890ab')).toBe(false);
  });

  it('normalises the forms PostHog parsers accept', () => {
    const canonical = '0190a3c5-7e1f-7d4a-9a3b-1234567890ab';
    expect(normalizeUuid(canonical)).toBe(canonical);
    expect(normalizeUuid('0190A3C5-7E1F-7D4A-9A3B-1234567890AB')).toBe(canonical);
    expect(normalizeUuid('0190a3c57e1f7d4a9a3b1234567890ab')).toBe(canonical);
    expect(normalizeUuid(`{${canonical}}`)).toBe(canonical);
    expect(normalizeUuid(` ${canonical} `)).toBe(canonical);
    expect(normalizeUuid('not-a-uuid')).toBeUndefined();
    expect(normalizeUuid(`${canonical}0`)).toBeUndefined();
  });

  it('generates time-ordered v7 uuids', () => {
    const random = new Uint8Array([0xff, 0xee, 0xdd, 1, 2, 3, 4, 5, 6, 7]);
    const id = uuidv7(Date.UTC(2026, 0, 1), random);
    expect(id).toBe('019b76da-a800-7fee-9d01-020304050607');
    expect(isValidUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
    expect(uuidv7(1000) < uuidv7(2000)).toBe(true);
    expect(uuidv7(1000)).not.toBe(uuidv7(1000));
    expect(() => uuidv7(0, new Uint8Array(3))).toThrow(RangeError);
  });
});
