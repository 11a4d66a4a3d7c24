/**
 * Person uuids as PostHog derives them from team and distinct id (UUIDv5 in its namespace
 * 932979b4-65c3-4424-8467-0b66ec27bc22). The expected values were made by Python's reference
 * implementation, `uuid.uuid5(uuid.UUID("932979b4-…"), "<team>:<distinct id>")`, which PostHog's
 * Django side calls; its plugin server uses the npm `uuid` package's v5, which agrees.
 */
import { describe, expect, it } from 'vitest';
import { uuidv5 } from '../../src/lib/uuid.js';
import { personUuidFromDistinctId, splitPersonUuid } from '../../src/persons/person-uuid.js';

describe('uuidv5', () => {
  it("matches RFC 9562's name-based UUID for the DNS namespace example", () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, "python.org")
    expect(uuidv5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidv5('not-a-uuid', 'x')).toThrow(RangeError);
  });
});

describe('personUuidFromDistinctId', () => {
  it.each([
    [1, 'abc', '07738276-ab30-525b-9ece-796064758bd4'],
    [2, 'user@example.com', '689656f4-631a-57af-9696-0bf9b099affd'],
    [7, 'ünïcödé 🦔', '916c2cae-bcad-51cb-81e5-f4f532834a7c'],
    [1, '', 'a29d8c7e-43ad-58a0-b250-c139a25aa918'],
  ])('team %i, distinct id %j gives PostHog’s uuid', (teamId, distinctId, expected) => {
    expect(personUuidFromDistinctId(teamId, distinctId)).toBe(expected);
  });

  it('differs per team for the same distinct id, and is a version 5 uuid', () => {
    const a = personUuidFromDistinctId(1, 'same');
    const b = personUuidFromDistinctId(2, 'same');
    expect(a).not.toBe(b);
    for (const uuid of [a, b]) expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('splitPersonUuid', () => {
  it("is the distinct id's own uuid unless the person being split has it", () => {
    const own = personUuidFromDistinctId(3, 'moved');
    expect(splitPersonUuid(3, 'moved', personUuidFromDistinctId(3, 'other'))).toBe(own);
    const renamed = splitPersonUuid(3, 'moved', own);
    expect(renamed).not.toBe(own);
    expect(renamed).toBe(uuidv5('932979b4-65c3-4424-8467-0b66ec27bc22', '3:moved:split'));
  });
});
