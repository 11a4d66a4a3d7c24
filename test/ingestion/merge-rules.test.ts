import { describe, expect, it } from 'vitest';

import {
  type MergeRequest,
  decideMerge,
  detectMergeRequest,
  isDistinctIdIllegal,
  isMergeAllowed,
  mergePersonProperties,
  mergePersons,
} from '../../src/ingestion/core/merge-rules.js';

describe('isDistinctIdIllegal', () => {
  it.each([
    'anonymous',
    'ANONYMOUS',
    'Guest',
    'distinctid',
    'distinct_id',
    'ID',
    'not_authenticated',
    'email',
    'UNDEFINED',
    'True',
    'false',
    '[object Object]',
    'NaN',
    'None',
    'none',
    'null',
    '0',
    'undefined',
    "'anonymous'",
    '"guest"',
    "'NaN'",
    '"null"',
    '"0"',
    "'[object Object]'",
    '',
    ' ',
    '\t\n',
  ])('refuses %j', (id) => {
    expect(isDistinctIdIllegal(id)).toBe(true);
  });

  it.each([
    'nan',
    'NULL',
    'Null',
    'NONE',
    '[object object]',
    '00',
    '1',
    'user@example.com',
    'anonymous1',
    ' anonymous',
    "'anonymous",
    'real-user',
  ])('accepts %j', (id) => {
    expect(isDistinctIdIllegal(id)).toBe(false);
  });
});

describe('detectMergeRequest', () => {
  it('reads $identify with $anon_distinct_id (posthog-js identify)', () => {
    expect(detectMergeRequest({ event: '$identify', distinctId: 'user', properties: { $anon_distinct_id: 'anon' } })).toEqual({
      kind: '$identify',
      intoDistinctId: 'user',
      otherDistinctId: 'anon',
    });
  });

  it('stringifies $anon_distinct_id like PostHog, so null becomes the illegal "null"', () => {
    expect(detectMergeRequest({ event: '$identify', distinctId: 'u', properties: { $anon_distinct_id: null } })?.otherDistinctId).toBe(
      'null',
    );
    expect(detectMergeRequest({ event: '$identify', distinctId: 'u', properties: { $anon_distinct_id: 42 } })?.otherDistinctId).toBe('42');
    expect(detectMergeRequest({ event: '$identify', distinctId: 'u', properties: { $anon_distinct_id: {} } })?.otherDistinctId).toBe(
      '[object Object]',
    );
  });

  it('makes the other id well-formed like the event distinct_id: NUL and lone surrogates become U+FFFD', () => {
    const other = (properties: Record<string, unknown>, event = '$identify') =>
      detectMergeRequest({ event, distinctId: 'u', properties })?.otherDistinctId;
    expect(other({ $anon_distinct_id: 'anon-\uD800\u0000' })).toBe('anon-\uFFFD\uFFFD');
    expect(other({ alias: '\uDC00alias\uD83D\uDE00' }, '$create_alias')).toBe('\uFFFDalias😀');
    expect(other({ alias: 'a\u0000' }, '$merge_dangerously')).toBe('a\uFFFD');
    // Not truncated: PostHog keeps $anon_distinct_id as sent.
    expect(other({ $anon_distinct_id: 'x'.repeat(300) })).toBe('x'.repeat(300));
  });

  it('treats a plain $identify as no merge', () => {
    expect(detectMergeRequest({ event: '$identify', distinctId: 'u', properties: { $set: { a: 1 } } })).toBeUndefined();
  });

  it('reads $create_alias and $merge_dangerously with a truthy alias (posthog-node alias)', () => {
    expect(detectMergeRequest({ event: '$create_alias', distinctId: 'u1', properties: { distinct_id: 'u1', alias: 'anon-1' } })).toEqual({
      kind: '$create_alias',
      intoDistinctId: 'u1',
      otherDistinctId: 'anon-1',
    });
    expect(detectMergeRequest({ event: '$merge_dangerously', distinctId: 'u1', properties: { alias: 7 } })).toEqual({
      kind: '$merge_dangerously',
      intoDistinctId: 'u1',
      otherDistinctId: '7',
    });
    expect(detectMergeRequest({ event: '$create_alias', distinctId: 'u1', properties: { alias: '' } })).toBeUndefined();
    expect(detectMergeRequest({ event: '$create_alias', distinctId: 'u1', properties: {} })).toBeUndefined();
  });

  it('ignores merge properties on other events', () => {
    expect(detectMergeRequest({ event: '$pageview', distinctId: 'u', properties: { alias: 'x', $anon_distinct_id: 'y' } })).toBeUndefined();
    expect(detectMergeRequest({ event: '$identify', distinctId: 'u', properties: { alias: 'x' } })).toBeUndefined();
  });
});

describe('decideMerge', () => {
  const identify: MergeRequest = { kind: '$identify', intoDistinctId: 'user', otherDistinctId: 'anon' };
  const anonPerson = { id: 'p-anon', isIdentified: false };
  const userPerson = { id: 'p-user', isIdentified: true };

  it('does nothing when both ids are the same', () => {
    expect(decideMerge({ request: { ...identify, otherDistinctId: 'user' }, intoPerson: userPerson, otherPerson: userPerson })).toEqual({
      action: 'noop',
      markIdentified: false,
      warnings: [],
    });
  });

  it('refuses illegal ids with cannot_merge_with_illegal_distinct_id, naming the illegal one', () => {
    const other = decideMerge({
      request: { ...identify, otherDistinctId: 'anonymous' },
      intoPerson: undefined,
      otherPerson: undefined,
      eventUuid: 'e1',
    });
    expect(other).toEqual({
      action: 'skip_illegal',
      markIdentified: false,
      warnings: [
        {
          type: 'cannot_merge_with_illegal_distinct_id',
          details: { illegalDistinctId: 'anonymous', otherDistinctId: 'user', eventUuid: 'e1' },
        },
      ],
    });
    const into = decideMerge({ request: { ...identify, intoDistinctId: 'null' }, intoPerson: undefined, otherPerson: anonPerson });
    expect(into.action).toBe('skip_illegal');
    expect(into.warnings[0]!.details).toEqual({ illegalDistinctId: 'null', otherDistinctId: 'anon', eventUuid: null });
  });

  it('creates one identified person with both ids when neither exists', () => {
    expect(decideMerge({ request: identify, intoPerson: undefined, otherPerson: undefined })).toEqual({
      action: 'create',
      distinctIds: ['user', 'anon'],
      markIdentified: true,
      warnings: [],
    });
  });

  it('adds the missing id to the existing person', () => {
    expect(decideMerge({ request: identify, intoPerson: undefined, otherPerson: anonPerson })).toEqual({
      action: 'add_distinct_id',
      personId: 'p-anon',
      distinctId: 'user',
      markIdentified: true,
      warnings: [],
    });
    expect(decideMerge({ request: identify, intoPerson: userPerson, otherPerson: undefined })).toMatchObject({
      action: 'add_distinct_id',
      personId: 'p-user',
      distinctId: 'anon',
    });
  });

  it('only marks identified when both ids already share a person', () => {
    expect(decideMerge({ request: identify, intoPerson: anonPerson, otherPerson: anonPerson })).toEqual({
      action: 'already_merged',
      personId: 'p-anon',
      markIdentified: true,
      warnings: [],
    });
  });

  it('merges an anonymous person into the distinct_id person, which survives', () => {
    expect(decideMerge({ request: identify, intoPerson: userPerson, otherPerson: anonPerson })).toEqual({
      action: 'merge',
      targetPersonId: 'p-user',
      sourcePersonId: 'p-anon',
      markIdentified: true,
      warnings: [],
    });
  });

  it('refuses to merge an already identified person for $identify and $create_alias', () => {
    const identified = { id: 'p-other', isIdentified: true };
    for (const kind of ['$identify', '$create_alias'] as const) {
      const decision = decideMerge({ request: { ...identify, kind }, intoPerson: userPerson, otherPerson: identified, eventUuid: 'e2' });
      expect(decision).toEqual({
        action: 'refuse',
        personId: 'p-user',
        markIdentified: true,
        warnings: [
          {
            type: 'cannot_merge_already_identified',
            details: { sourcePersonDistinctId: 'anon', targetPersonDistinctId: 'user', eventUuid: 'e2' },
          },
        ],
      });
    }
  });

  it('merges identified persons with $merge_dangerously', () => {
    const decision = decideMerge({
      request: { ...identify, kind: '$merge_dangerously' },
      intoPerson: userPerson,
      otherPerson: { id: 'p-other', isIdentified: true },
    });
    expect(decision).toMatchObject({ action: 'merge', targetPersonId: 'p-user', sourcePersonId: 'p-other' });
  });

  it('isMergeAllowed depends only on the source person and the event kind', () => {
    expect(isMergeAllowed('$identify', { id: 'a', isIdentified: false })).toBe(true);
    expect(isMergeAllowed('$identify', { id: 'a', isIdentified: true })).toBe(false);
    expect(isMergeAllowed('$merge_dangerously', { id: 'a', isIdentified: true })).toBe(true);
  });
});

describe('mergePersons', () => {
  it('keeps target properties on conflicts, the earliest creation and a version above both', () => {
    const target = { properties: { email: 'user@x', plan: 'pro' }, createdAt: new Date('2026-02-01T00:00:00Z'), version: 2 };
    const source = { properties: { plan: 'free', $initial_referrer: 'google' }, createdAt: new Date('2026-01-01T00:00:00Z'), version: 7 };
    expect(mergePersons(target, source)).toEqual({
      properties: { email: 'user@x', plan: 'pro', $initial_referrer: 'google' },
      createdAt: new Date('2026-01-01T00:00:00Z'),
      version: 8,
      isIdentified: true,
    });
  });

  it('does not modify its inputs', () => {
    const target = { a: 1 };
    const source = { a: 2, b: 3 };
    expect(mergePersonProperties(target, source)).toEqual({ a: 1, b: 3 });
    expect(target).toEqual({ a: 1 });
    expect(source).toEqual({ a: 2, b: 3 });
  });
});
