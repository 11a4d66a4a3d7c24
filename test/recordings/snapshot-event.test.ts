import { describe, expect, it } from 'vitest';

import {
  isValidSessionId,
  normaliseDistinctId,
  parseSnapshotPayload,
  type SnapshotBatch,
} from '../../src/recordings/core/snapshot-event.js';
import { loadWebRecording } from './fixtures/load.js';

const T = Date.UTC(2025, 10, 21, 5, 0, 0);
const SESSION = '019aa5a0-7d4e-7b1c-9a57-3c1f2e8b9d10';

function snapshot(properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    event: '$snapshot',
    properties: {
      $session_id: SESSION,
      $window_id: 'win-1',
      $snapshot_data: [{ type: 4, data: { href: 'https://a.test/' }, timestamp: T }],
      distinct_id: 'user-1',
      ...properties,
    },
    ...extra,
  };
}

function ok(body: unknown): SnapshotBatch[] {
  const result = parseSnapshotPayload(body);
  if (!result.ok) throw new Error(`expected success, got ${result.error.detail}`);
  return result.batches;
}

function error(body: unknown) {
  const result = parseSnapshotPayload(body);
  if (result.ok) throw new Error('expected a validation error');
  return result.error;
}

describe('parseSnapshotPayload', () => {
  it('normalises the posthog-js requests of the fixture', () => {
    const fixture = loadWebRecording();
    const batches = fixture.requests.flatMap((body) => ok(body));
    expect(batches).toHaveLength(3);
    for (const b of batches) {
      expect(b.sessionId).toBe(fixture.sessionId);
      expect(b.windowId).toBe(fixture.windowId);
      expect(b.distinctId).toBe('user-42');
      expect(b.snapshotSource).toBe('web');
      expect(b.snapshotLibrary).toBe('web');
      expect(b.droppedItems).toBe(0);
      expect(b.snapshotBytes).toBeGreaterThan(0);
    }
    expect(batches.map((b) => b.events.length)).toEqual([12, 12, 5]);
    expect(batches[0]!.events[0]).toMatchObject({ type: 4, timestamp: fixture.t0 });
  });

  it('accepts a single event object and a single rrweb event as $snapshot_data', () => {
    const batches = ok(snapshot({ $snapshot_data: { type: 3, data: { source: 1 }, timestamp: T } }));
    expect(batches).toHaveLength(1);
    expect(batches[0]!.events).toEqual([{ type: 3, data: { source: 1 }, timestamp: T }]);
  });

  it('flattens several events of one session/window into one batch, in order', () => {
    const batches = ok([
      snapshot({ $snapshot_data: [{ type: 2, data: {}, timestamp: T + 1 }], $snapshot_bytes: 10 }),
      snapshot({ $snapshot_data: [{ type: 3, data: { source: 2, type: 2 }, timestamp: T + 2 }], $snapshot_bytes: 5 }),
    ]);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.events.map((e) => e.timestamp)).toEqual([T + 1, T + 2]);
    expect(batches[0]!.snapshotBytes).toBe(15);
  });

  it('groups by session and window', () => {
    const batches = ok([
      snapshot({ $window_id: 'w1' }),
      snapshot({ $window_id: 'w2' }),
      snapshot({ $window_id: 'w1' }),
      snapshot({ $session_id: 'other-session', $window_id: 'w1' }),
    ]);
    expect(batches.map((b) => [b.sessionId, b.windowId, b.events.length])).toEqual([
      [SESSION, 'w1', 2],
      [SESSION, 'w2', 1],
      ['other-session', 'w1', 1],
    ]);
  });

  it('defaults the window to the session and the source to web; keeps mobile sources and uuid', () => {
    const [b] = ok(snapshot({ $window_id: undefined }));
    expect(b!.windowId).toBe(SESSION);
    expect(b!.snapshotSource).toBe('web');
    expect(b!.snapshotLibrary).toBeNull();
    const [m] = ok(snapshot({ $snapshot_source: 'mobile', $lib: 'posthog-ios' }, { uuid: '0190a1b2-0000-7000-8000-000000000001' }));
    expect(m!.snapshotSource).toBe('mobile');
    expect(m!.snapshotLibrary).toBe('posthog-ios');
    expect(m!.uuid).toBe('0190a1b2-0000-7000-8000-000000000001');
  });

  it('accepts a {"batch": [...]} wrapper', () => {
    expect(ok({ api_key: 'phc_x', batch: [snapshot({})] })).toHaveLength(1);
  });

  it('drops rrweb items without a numeric type or a positive timestamp', () => {
    const [b] = ok(
      snapshot({
        $snapshot_data: [
          { type: 3, data: { source: 1 }, timestamp: T },
          { type: 3, data: { source: 1 }, timestamp: 0 },
          { type: 3, data: { source: 1 } },
          { data: { source: 1 }, timestamp: T },
          null,
          'text',
          { type: 3, data: { source: 1 }, timestamp: Number.NaN },
        ],
      }),
    );
    expect(b!.events).toHaveLength(1);
    expect(b!.droppedItems).toBe(6);
  });

  describe('distinct_id', () => {
    it('is read from the event root, $distinct_id or properties', () => {
      expect(ok(snapshot({ distinct_id: undefined }, { distinct_id: 'root' }))[0]!.distinctId).toBe('root');
      expect(ok(snapshot({ distinct_id: undefined }, { $distinct_id: 'dollar' }))[0]!.distinctId).toBe('dollar');
      expect(ok(snapshot({ distinct_id: 12345 }))[0]!.distinctId).toBe('12345');
    });

    it('is required and non-empty', () => {
      expect(error(snapshot({ distinct_id: undefined }))).toMatchObject({
        code: 'invalid_payload',
        attr: 'distinct_id',
        index: 0,
      });
      expect(error(snapshot({ distinct_id: '' })).attr).toBe('distinct_id');
      expect(error(snapshot({ distinct_id: { id: 1 } })).attr).toBe('distinct_id');
    });

    it('is truncated to 200 characters and NUL is replaced', () => {
      expect(normaliseDistinctId('x'.repeat(250))).toHaveLength(200);
      expect(normaliseDistinctId('a\0b')).toBe('a\uFFFDb');
      expect(normaliseDistinctId(null)).toBeUndefined();
    });
  });

  describe('$session_id', () => {
    it('is required', () => {
      const e = error(snapshot({ $session_id: undefined }));
      expect(e.attr).toBe('$session_id');
      expect(e.detail).toContain('$session_id is required');
    });

    it('must be at most 70 letters, digits or dashes', () => {
      expect(isValidSessionId('a'.repeat(70))).toBe(true);
      expect(isValidSessionId('a'.repeat(71))).toBe(false);
      expect(isValidSessionId('abc_def')).toBe(false);
      expect(isValidSessionId('abc def')).toBe(false);
      expect(isValidSessionId('')).toBe(false);
      expect(isValidSessionId(123)).toBe(false);
      expect(error(snapshot({ $session_id: 'bad/id' })).attr).toBe('$session_id');
      expect(error(snapshot({ $session_id: 42 })).attr).toBe('$session_id');
    });

    it('is validated on every event, reporting the index', () => {
      const e = error([snapshot({}), snapshot({ $session_id: 'x'.repeat(71) })]);
      expect(e.index).toBe(1);
      expect(e.detail).toMatch(/^Event 1:/);
    });
  });

  it('requires $snapshot_data to be an rrweb event or an array', () => {
    for (const bad of [undefined, null, 'abc', 12]) {
      expect(error(snapshot({ $snapshot_data: bad })).attr).toBe('$snapshot_data');
    }
  });

  it('rejects a non-string $window_id', () => {
    expect(error(snapshot({ $window_id: 5 })).attr).toBe('$window_id');
  });

  it('rejects other event names, non-objects and empty bodies', () => {
    expect(error(snapshot({}, { event: '$pageview' })).attr).toBe('event');
    expect(error([snapshot({}), 'nope']).index).toBe(1);
    expect(error([]).detail).toMatch(/no events/);
    expect(error('text').index).toBeNull();
    expect(error(snapshot({}, { properties: 'x' })).attr).toBe('properties');
  });
});
