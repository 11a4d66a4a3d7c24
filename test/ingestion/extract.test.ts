import { describe, expect, it } from 'vitest';

import {
  type ExtractEventsResult,
  checkTokenShape,
  eventName,
  extractDistinctId,
  extractEvents,
  truncateCodePoints,
} from '../../src/ingestion/core/extract.js';
import type { JsonValue } from '../../src/ingestion/core/types.js';

const T = 'phc_test';

function extract(value: unknown, endpoint: 'capture' | 'batch' | 'engage' = 'capture', query?: Record<string, string>) {
  return extractEvents({ value: value as JsonValue, endpoint, query });
}

function ok(result: ExtractEventsResult) {
  if (!result.ok) throw new Error(`expected ok, got ${result.status} ${result.error.code}: ${result.error.detail}`);
  return result;
}

function failure(result: ExtractEventsResult, status: number, code: string) {
  if (result.ok) throw new Error('expected a failure');
  expect(result.status).toBe(status);
  expect(result.error.code).toBe(code);
  return result;
}

describe('extractEvents: request shapes', () => {
  it('reads a single event object (documented /capture/ body)', () => {
    const result = ok(
      extract({ api_key: T, event: 'signed_up', distinct_id: 'u1', properties: { plan: 'pro' }, timestamp: '2026-01-01T00:00:00Z' }),
    );
    expect(result.token).toBe(T);
    expect(result.events).toHaveLength(1);
    expect(result.events[0]).toMatchObject({
      index: 0,
      event: 'signed_up',
      distinctId: 'u1',
      uuid: undefined,
      properties: { plan: 'pro' },
      timestamp: '2026-01-01T00:00:00Z',
    });
    expect(result.historicalMigration).toBe(false);
    expect(result.sentAt).toBeUndefined();
  });

  it('reads the batch envelope with sent_at and historical_migration (posthog-node)', () => {
    const result = ok(
      extract(
        {
          api_key: T,
          historical_migration: true,
          sent_at: '2026-01-01T00:00:01.000Z',
          batch: [
            { event: 'a', distinct_id: 'u1', properties: {}, type: 'capture', library: 'posthog-node' },
            { event: 'b', properties: { distinct_id: 'u2' } },
          ],
        },
        'batch',
      ),
    );
    expect(result.historicalMigration).toBe(true);
    expect(result.sentAt).toBe('2026-01-01T00:00:01.000Z');
    expect(result.events.map((e) => [e.event, e.distinctId, e.index])).toEqual([
      ['a', 'u1', 0],
      ['b', 'u2', 1],
    ]);
  });

  it('treats only true / "true" as historical_migration', () => {
    const base = { api_key: T, batch: [{ event: 'a', distinct_id: 'u' }] };
    expect(ok(extract({ ...base, historical_migration: 'true' })).historicalMigration).toBe(true);
    expect(ok(extract({ ...base, historical_migration: 1 })).historicalMigration).toBe(false);
    expect(ok(extract({ ...base, historical_migration: false })).historicalMigration).toBe(false);
  });

  it('reads an array body (posthog-js classic)', () => {
    const result = ok(
      extract([
        { event: '$pageview', properties: { token: T, distinct_id: 'anon-1' }, offset: 500 },
        { event: '$autocapture', properties: { token: T, distinct_id: 'anon-1' }, offset: 10 },
      ]),
    );
    expect(result.token).toBe(T);
    expect(result.events.map((e) => e.offset)).toEqual([500, 10]);
  });

  it('rejects empty requests and shapes that hold no events', () => {
    failure(extract([]), 400, 'invalid_payload');
    failure(extract({ api_key: T, batch: [] }), 400, 'invalid_payload');
    failure(extract({ api_key: T, batch: { event: 'x' } }), 400, 'invalid_payload');
    for (const value of [null, 12, 'text', true]) failure(extract(value), 400, 'invalid_payload');
  });

  it('filters $performance_event silently, even when nothing remains', () => {
    const result = ok(extract([{ event: '$performance_event', properties: { token: T, distinct_id: 'u' } }]));
    expect(result.events).toEqual([]);
    expect(result.dropped).toEqual([]);
    expect(result.filteredCount).toBe(1);
  });

  it('copies properties instead of aliasing the request object', () => {
    const properties = { distinct_id: 'u', a: 1 };
    const result = ok(extract({ api_key: T, event: 'e', properties }));
    result.events[0]!.properties.a = 2;
    expect(properties.a).toBe(1);
  });

  it('keeps top-level $set, $set_once and $unset; ignores malformed $set', () => {
    const result = ok(extract({ api_key: T, event: '$identify', distinct_id: 'u', $set: { a: 1 }, $set_once: { b: 2 }, $unset: ['c'] }));
    expect(result.events[0]).toMatchObject({ set: { a: 1 }, setOnce: { b: 2 }, unset: ['c'] });
    const malformed = ok(extract({ api_key: T, event: 'e', distinct_id: 'u', $set: 'nope', $set_once: [1] }));
    expect(malformed.events[0]!.set).toBeUndefined();
    expect(malformed.events[0]!.setOnce).toBeUndefined();
  });

  it('turns name-less /engage objects into $identify', () => {
    const result = ok(extract({ $token: T, $distinct_id: 'u', $set: { a: 1 } }, 'engage'));
    expect(result.events[0]).toMatchObject({ event: '$identify', distinctId: 'u', set: { a: 1 } });
    // On other paths the same object has no name and is dropped (contract: 200, not ingested).
    const capture = ok(extract({ $token: T, $distinct_id: 'u', $set: { a: 1 } }, 'capture'));
    expect(capture.events).toEqual([]);
    expect(capture.dropped[0]!.reason).toBe('missing_event_name');
  });
});

describe('extractEvents: dropped events (docs/decisions/0002)', () => {
  it('drops events without a name, keeping the others of the batch', () => {
    const result = ok(
      extract({
        api_key: T,
        batch: [
          { event: 'kept', distinct_id: 'u' },
          { distinct_id: 'u' },
          { event: '', distinct_id: 'u' },
          { event: null, distinct_id: 'u', uuid: '0190a3c5-7e1f-7d4a-9a3b-1234567890ab' },
        ],
      }),
    );
    expect(result.events.map((e) => e.event)).toEqual(['kept']);
    expect(result.dropped.map((d) => [d.index, d.reason])).toEqual([
      [1, 'missing_event_name'],
      [2, 'missing_event_name'],
      [3, 'missing_event_name'],
    ]);
    expect(result.dropped[2]!.warning).toEqual({
      type: 'missing_event_name',
      details: { index: 3, eventUuid: '0190a3c5-7e1f-7d4a-9a3b-1234567890ab' },
    });
  });

  it('drops events without a distinct_id or with an empty one, with distinct reasons', () => {
    const result = ok(
      extract({
        api_key: T,
        batch: [
          { event: 'a' },
          { event: 'b', distinct_id: null, properties: { distinct_id: null } },
          { event: 'c', distinct_id: '' },
          { event: 'd', distinct_id: '', properties: { distinct_id: '' } },
        ],
      }),
    );
    expect(result.events).toEqual([]);
    expect(result.dropped.map((d) => d.reason)).toEqual([
      'missing_distinct_id',
      'missing_distinct_id',
      'empty_distinct_id',
      'empty_distinct_id',
    ]);
    expect(result.dropped[2]!.warning.details).toMatchObject({ eventName: 'c' });
  });

  it('drops non-object batch elements instead of failing the request', () => {
    const result = ok(extract([null, 5, ['x'], { event: 'e', properties: { token: T, distinct_id: 'u' } }]));
    expect(result.events).toHaveLength(1);
    expect(result.dropped.map((d) => [d.index, d.reason, d.warning.details.type])).toEqual([
      [0, 'invalid_event', 'null'],
      [1, 'invalid_event', 'number'],
      [2, 'invalid_event', 'array'],
    ]);
  });
});

describe('extractEvents: structural errors reject the request', () => {
  it('rejects a malformed uuid with 400, accepts valid forms and normalises them', () => {
    failure(extract({ api_key: T, event: 'e', distinct_id: 'u', uuid: 'not-a-uuid' }), 400, 'invalid_payload');
    failure(extract({ api_key: T, event: 'e', distinct_id: 'u', uuid: 42 }), 400, 'invalid_payload');
    const upper = ok(extract({ api_key: T, event: 'e', distinct_id: 'u', uuid: '0190A3C5-7E1F-7D4A-9A3B-1234567890AB' }));
    expect(upper.events[0]!.uuid).toBe('0190a3c5-7e1f-7d4a-9a3b-1234567890ab');
    const empty = ok(extract({ api_key: T, event: 'e', distinct_id: 'u', uuid: '' }));
    expect(empty.events[0]!.uuid).toBeUndefined();
  });

  it('rejects properties that are not an object, but accepts null', () => {
    failure(extract({ api_key: T, event: 'e', distinct_id: 'u', properties: [1] }), 400, 'invalid_payload');
    failure(extract({ api_key: T, event: 'e', distinct_id: 'u', properties: 'x' }), 400, 'invalid_payload');
    expect(ok(extract({ api_key: T, event: 'e', distinct_id: 'u', properties: null })).events[0]!.properties).toEqual({});
  });

  it('rejects a non-boolean $cookieless_mode', () => {
    failure(extract({ api_key: T, event: 'e', distinct_id: 'u', properties: { $cookieless_mode: 'yes' } }), 400, 'invalid_payload');
    ok(extract({ api_key: T, event: 'e', distinct_id: 'u', properties: { $cookieless_mode: true } }));
  });
});

describe('extractEvents: token', () => {
  const ev = (extra: Record<string, unknown>) => ({ event: 'e', distinct_id: 'u', ...extra });

  it('takes the envelope api_key (alias token) over per-event tokens', () => {
    expect(ok(extract({ api_key: T, batch: [ev({ token: 'phc_other' })] })).token).toBe(T);
    expect(ok(extract({ token: T, batch: [ev({})] })).token).toBe(T);
    expect(ok(extract({ api_key: T, token: 'phc_other', batch: [ev({})] })).token).toBe(T);
  });

  it('reads per-event token, $token, api_key, then properties.token, in that order', () => {
    expect(ok(extract(ev({ token: 'phc_a', $token: 'phc_b', api_key: 'phc_c', properties: { token: 'phc_d' } }))).token).toBe('phc_a');
    expect(ok(extract(ev({ $token: 'phc_b', api_key: 'phc_c', properties: { token: 'phc_d' } }))).token).toBe('phc_b');
    expect(ok(extract(ev({ api_key: 'phc_c', properties: { token: 'phc_d' } }))).token).toBe('phc_c');
    expect(ok(extract(ev({ properties: { token: 'phc_d' } }))).token).toBe('phc_d');
  });

  it('falls back to the query token (legacy GET) and trims whitespace', () => {
    expect(ok(extract(ev({}), 'capture', { token: ' phc_q ' })).token).toBe('phc_q');
    expect(ok(extract(ev({}), 'capture', { api_key: 'phc_q2' })).token).toBe('phc_q2');
    expect(ok(extract(ev({ token: '  phc_test\n' }))).token).toBe(T);
  });

  it('rejects inconsistent tokens across an array with 401', () => {
    const result = failure(extract([ev({ token: 'phc_a' }), ev({ properties: { token: 'phc_b' } })]), 401, 'invalid_api_key');
    expect(result.tokenProblem).toBe('inconsistent');
    expect(result.error.type).toBe('authentication_error');
    // Events without a token inherit the one the others carry.
    expect(ok(extract([ev({ token: 'phc_a' }), ev({})])).token).toBe('phc_a');
  });

  it('answers a missing token with 401 missing_api_key', () => {
    const result = failure(extract(ev({})), 401, 'missing_api_key');
    expect(result.tokenProblem).toBe('missing');
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    [123, 'not_string'],
    ['x'.repeat(65), 'too_long'],
    ['phc_é', 'not_ascii'],
    ['phx_personal', 'personal_api_key'],
    ['phc_\u0000', 'null_byte'],
  ])('rejects token %j as %s with the contract envelope', (token, problem) => {
    const result = failure(extract({ api_key: token, batch: [ev({})] }), 401, 'invalid_api_key');
    expect(result.tokenProblem).toBe(problem);
    expect(result.error).toEqual({
      type: 'authentication_error',
      code: 'invalid_api_key',
      detail: 'Project API key invalid. You can find your project API key in your project settings.',
      attr: null,
    });
  });

  it('accepts a 64-character token', () => {
    expect(checkTokenShape('x'.repeat(64))).toEqual({ ok: true, token: 'x'.repeat(64) });
  });
});

describe('distinct_id', () => {
  it('prefers top-level distinct_id, then $distinct_id, then properties.distinct_id', () => {
    expect(extractDistinctId({ distinct_id: 'a', $distinct_id: 'b' }, { distinct_id: 'c' })).toEqual({ kind: 'ok', value: 'a' });
    expect(extractDistinctId({ $distinct_id: 'b' }, { distinct_id: 'c' })).toEqual({ kind: 'ok', value: 'b' });
    expect(extractDistinctId({}, { distinct_id: 'c' })).toEqual({ kind: 'ok', value: 'c' });
    expect(extractDistinctId({ distinct_id: '' }, { distinct_id: 'c' })).toEqual({ kind: 'ok', value: 'c' });
  });

  it('coerces non-strings with JSON encoding, as capture-rs does', () => {
    expect(extractDistinctId({ distinct_id: 123 }, {})).toEqual({ kind: 'ok', value: '123' });
    expect(extractDistinctId({ distinct_id: 1.5 }, {})).toEqual({ kind: 'ok', value: '1.5' });
    expect(extractDistinctId({ distinct_id: true }, {})).toEqual({ kind: 'ok', value: 'true' });
    expect(extractDistinctId({ distinct_id: { a: 1 } }, {})).toEqual({ kind: 'ok', value: '{"a":1}' });
    expect(extractDistinctId({ distinct_id: [1, 'x'] }, {})).toEqual({ kind: 'ok', value: '[1,"x"]' });
    // A whitespace id is not empty: PostHog keeps it (merges refuse it as illegal later).
    expect(extractDistinctId({ distinct_id: ' ' }, {})).toEqual({ kind: 'ok', value: ' ' });
  });

  it('replaces NUL and truncates to 200 characters without splitting surrogate pairs', () => {
    expect(extractDistinctId({ distinct_id: 'a\u0000b' }, {})).toEqual({ kind: 'ok', value: 'a\uFFFDb' });
    const long = extractDistinctId({ distinct_id: 'x'.repeat(10_000) }, {});
    expect(long).toEqual({ kind: 'ok', value: 'x'.repeat(200) });
    const emoji = extractDistinctId({ distinct_id: '😀'.repeat(300) }, {});
    expect(emoji.kind === 'ok' && [...emoji.value].length).toBe(200);
    expect(emoji.kind === 'ok' && emoji.value).toBe('😀'.repeat(200));
  });

  it('replaces lone UTF-16 surrogates with U+FFFD, as NUL, and keeps valid pairs', () => {
    const id = (distinct_id: unknown) => extractDistinctId({ distinct_id }, {});
    expect(id('user-\uD800')).toEqual({ kind: 'ok', value: 'user-\uFFFD' });
    expect(id('\uDC00user')).toEqual({ kind: 'ok', value: '\uFFFDuser' });
    // Reversed pair: both halves are lone.
    expect(id('a\uDC00\uD800b')).toEqual({ kind: 'ok', value: 'a\uFFFD\uFFFDb' });
    expect(id('a\uD83D\uDE00b')).toEqual({ kind: 'ok', value: 'a😀b' });
    expect(id('\uD800\uD83D\uDE00\u0000')).toEqual({ kind: 'ok', value: '\uFFFD😀\uFFFD' });
    // Every source, and non-strings JSON-encoded first (JSON.stringify escapes a lone surrogate).
    expect(extractDistinctId({ $distinct_id: 'x\uD800' }, {})).toEqual({ kind: 'ok', value: 'x\uFFFD' });
    expect(extractDistinctId({}, { distinct_id: 'x\uDFFF' })).toEqual({ kind: 'ok', value: 'x\uFFFD' });
    expect(id(['\uD800'])).toEqual({ kind: 'ok', value: '["\\ud800"]' });
    // Text that only looks like an escape is kept.
    expect(id('user-\\u0000-\\ud800')).toEqual({ kind: 'ok', value: 'user-\\u0000-\\ud800' });
  });

  it('replaces before truncating: the 200 characters are well-formed', () => {
    const value = 'x'.repeat(199) + '\uD800\uD800';
    expect(extractDistinctId({ distinct_id: value }, {})).toEqual({ kind: 'ok', value: 'x'.repeat(199) + '\uFFFD' });
  });

  it('gives the event a well-formed distinct_id through extractEvents', () => {
    const result = ok(extract({ api_key: T, event: 'e', distinct_id: 'u\u0000\uD800' }));
    expect(result.events[0]!.distinctId).toBe('u\uFFFD\uFFFD');
  });

  it('handles a 10 MB distinct_id cheaply', () => {
    const result = ok(extract({ api_key: T, event: 'e', distinct_id: 'd'.repeat(10 * 1024 * 1024) }));
    expect(result.events[0]!.distinctId).toHaveLength(200);
  });
});

describe('event names', () => {
  it('keeps strings, JSON-encodes other values, truncates to 200', () => {
    expect(eventName('$pageview')).toBe('$pageview');
    expect(eventName(42)).toBe('42');
    expect(eventName(false)).toBe('false');
    expect(eventName({ a: 1 })).toBe('{"a":1}');
    expect(eventName('n'.repeat(500))).toBe('n'.repeat(200));
    // Stored in a text column like distinct ids: NUL and lone surrogates become U+FFFD.
    expect(eventName('sign\u0000up\uD800')).toBe('sign\uFFFDup\uFFFD');
    expect(eventName('ok 😀')).toBe('ok 😀');
    expect(eventName('')).toBeUndefined();
    expect(eventName(null)).toBeUndefined();
    expect(eventName(undefined)).toBeUndefined();
  });

  it('truncateCodePoints leaves short strings alone', () => {
    expect(truncateCodePoints('abc', 5)).toBe('abc');
    expect(truncateCodePoints('a😀b', 2)).toBe('a😀');
  });
});
