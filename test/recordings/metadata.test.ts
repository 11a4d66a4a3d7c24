import { describe, expect, it } from 'vitest';

import {
  ACTIVITY_THRESHOLD_MS,
  MAX_OPEN_ACTIVITY_WINDOWS,
  activeMilliseconds,
  activeMillisecondsOf,
  emptyMetadata,
  foldBatch,
  foldEvents,
  MAX_ORPHAN_TIMESTAMPS,
  type RecordingMetadata,
} from '../../src/recordings/core/metadata.js';
import {
  activityScore,
  dateDiffSeconds,
  isOngoing,
  roundHalfEven2,
  summarizeMetadata,
} from '../../src/recordings/core/recording-summary.js';
import { parseSnapshotPayload } from '../../src/recordings/core/snapshot-event.js';
import type { RRWebEvent } from '../../src/recordings/core/rrweb.js';
import { loadWebRecording, WEB_RECORDING_EXPECTED } from './fixtures/load.js';

const T0 = Date.UTC(2025, 10, 21, 5, 0, 0);

function recordingChunks(): { events: RRWebEvent[]; windowId: string; distinctId: string; lib: string | null }[] {
  const fixture = loadWebRecording();
  return fixture.requests.map((body) => {
    const parsed = parseSnapshotPayload(body);
    if (!parsed.ok) throw new Error(parsed.error.detail);
    expect(parsed.batches).toHaveLength(1);
    const batch = parsed.batches[0]!;
    return { events: batch.events, windowId: batch.windowId, distinctId: batch.distinctId, lib: batch.snapshotLibrary };
  });
}

function foldAll(chunks: { events: RRWebEvent[]; windowId: string }[]): RecordingMetadata {
  let meta = emptyMetadata();
  for (const chunk of chunks) meta = foldEvents(meta, chunk.events, { windowId: chunk.windowId });
  return meta;
}

const active = (dt: number): RRWebEvent => ({ type: 3, timestamp: T0 + dt, data: { source: 1, positions: [] } });
const mutation = (dt: number): RRWebEvent => ({ type: 3, timestamp: T0 + dt, data: { source: 0, adds: [] } });
const meta = (dt: number, href: string): RRWebEvent => ({ type: 4, timestamp: T0 + dt, data: { href, width: 1, height: 1 } });

describe('foldEvents on the posthog-js recording fixture', () => {
  const chunks = recordingChunks();

  it('counts clicks, keypresses, mouse activity and console levels like PostHog', () => {
    const m = foldAll(chunks);
    const e = WEB_RECORDING_EXPECTED;
    expect(m.eventCount).toBe(e.eventCount);
    expect(m.clickCount).toBe(e.clickCount);
    expect(m.keypressCount).toBe(e.keypressCount);
    expect(m.mouseActivityCount).toBe(e.mouseActivityCount);
    expect(m.consoleLogCount).toBe(e.consoleLogCount);
    expect(m.consoleWarnCount).toBe(e.consoleWarnCount);
    expect(m.consoleErrorCount).toBe(e.consoleErrorCount);
    expect(m.messageCount).toBe(3);
  });

  it('computes active time with the 5 s activity threshold', () => {
    const m = foldAll(chunks);
    expect(activeMilliseconds(m)).toBe(WEB_RECORDING_EXPECTED.activeMs);
  });

  it('summarises into the session recording fields', () => {
    const s = summarizeMetadata(foldAll(chunks));
    const e = WEB_RECORDING_EXPECTED;
    expect(s.start_time).toBe('2025-11-21T05:00:00.000Z');
    expect(s.end_time).toBe('2025-11-21T05:01:10.000Z');
    expect(s.recording_duration).toBe(e.durationSeconds);
    expect(s.active_seconds).toBe(21.701);
    expect(s.inactive_seconds).toBe(48.299);
    expect(s.start_url).toBe(e.firstUrl);
    expect(s.urls).toEqual(e.urls);
    expect(s.snapshot_source).toBe('web');
    // (21.701 + 4 clicks + 3 keypresses + 2 errors) / (9 mouse + 70 s + 2 errors + 4 logs + 2 warns) * 100
    expect(s.activity_score).toBe(35.29);
    expect(s.click_count).toBe(4);
    expect(s.console_error_count).toBe(2);
  });

  it('size is the UTF-8 size of the stored [windowId, event] JSONL lines', () => {
    const m = foldAll(chunks);
    const expected = chunks
      .flatMap((c) => c.events.map((ev) => Buffer.byteLength(JSON.stringify([c.windowId, ev]) + '\n', 'utf8')))
      .reduce((a, b) => a + b, 0);
    expect(m.size).toBe(expected);
    // the fixture contains a non-ASCII character (€), so bytes differ from UTF-16 length
    const utf16 = chunks.flatMap((c) => c.events.map((ev) => (JSON.stringify([c.windowId, ev]) + '\n').length)).reduce((a, b) => a + b, 0);
    expect(m.size).toBeGreaterThan(utf16);
  });

  it('folding in pieces equals folding everything at once', () => {
    const all = chunks.flatMap((c) => c.events);
    const windowId = chunks[0]!.windowId;
    const once = foldEvents(emptyMetadata(), all, { windowId });
    for (const size of [1, 2, 3, 5, 7, 11]) {
      let m = emptyMetadata();
      for (let i = 0; i < all.length; i += size) m = foldEvents(m, all.slice(i, i + size), { windowId });
      // message_count counts folds, by definition; everything else must be identical
      expect({ ...summarizeMetadata(m), message_count: 0 }).toEqual({ ...summarizeMetadata(once), message_count: 0 });
      expect(m.messageCount).toBe(Math.ceil(all.length / size));
      expect(activeMilliseconds(m)).toBe(activeMilliseconds(once));
    }
  });

  it('tolerates the requests arriving out of order', () => {
    const inOrder = summarizeMetadata(foldAll(chunks));
    for (const order of [
      [2, 0, 1],
      [1, 2, 0],
      [2, 1, 0],
    ]) {
      const shuffled = summarizeMetadata(foldAll(order.map((i) => chunks[i]!)));
      expect({ ...shuffled, urls: [...shuffled.urls].sort(), message_count: 0 }).toEqual({
        ...inOrder,
        urls: [...inOrder.urls].sort(),
        message_count: 0,
      });
    }
  });

  it('does not mutate the metadata it is given', () => {
    const first = foldEvents(emptyMetadata(), chunks[0]!.events, { windowId: 'w' });
    const snapshot = JSON.stringify(first);
    foldEvents(first, chunks[1]!.events, { windowId: 'w' });
    expect(JSON.stringify(first)).toBe(snapshot);
  });

  it('state survives a JSON round trip (it is persisted between chunks)', () => {
    let m = emptyMetadata();
    for (const c of chunks) m = JSON.parse(JSON.stringify(foldEvents(m, c.events, { windowId: c.windowId })));
    expect(activeMilliseconds(m)).toBe(WEB_RECORDING_EXPECTED.activeMs);
  });
});

describe('active time segmentation rules', () => {
  const activeMs = (events: RRWebEvent[]) => activeMilliseconds(foldEvents(emptyMetadata(), events));

  it('a gap of exactly the threshold keeps one segment; one millisecond more splits it', () => {
    expect(ACTIVITY_THRESHOLD_MS).toBe(5000);
    expect(activeMs([active(0), active(5000)])).toBe(5000);
    expect(activeMs([active(0), active(5001)])).toBe(2); // two lone active events, 1 ms each
  });

  it('a lone active event counts 1 ms, a recording without activity 0', () => {
    expect(activeMs([active(100)])).toBe(1);
    expect(activeMs([mutation(0), mutation(30_000)])).toBe(0);
    expect(activeMs([meta(0, 'https://a.test/'), { type: 2, timestamp: T0 + 1, data: { node: {} } }])).toBe(0);
  });

  it('inactive events within the threshold after the last activity extend the segment', () => {
    expect(activeMs([active(0), mutation(3000)])).toBe(3000);
    expect(activeMs([active(0), mutation(5000)])).toBe(5000);
    // beyond the threshold the inactive event starts an inactive segment instead
    expect(activeMs([active(0), mutation(5001)])).toBe(1);
    expect(activeMs([active(0), mutation(3000), mutation(7000)])).toBe(3000);
  });

  it('an inactive event beyond the threshold does not prevent a later active event within the gap rule', () => {
    // active 0, inactive 6000 (new inactive segment), active 8000 (new active segment)
    expect(activeMs([active(0), mutation(6000), active(8000), active(9000)])).toBe(1 + 1000);
  });

  it('counts every source PostHog treats as activity and nothing else', () => {
    const activeSources = [1, 2, 3, 4, 5, 6, 7, 12];
    const inactiveSources = [0, 8, 9, 10, 11, 13, 14, 15];
    for (const source of activeSources) {
      expect(activeMs([{ type: 3, timestamp: T0, data: { source } }])).toBe(1);
    }
    for (const source of inactiveSources) {
      expect(activeMs([{ type: 3, timestamp: T0, data: { source } }])).toBe(0);
    }
    // a plugin or custom event with a "source" field is not an incremental snapshot
    expect(activeMs([{ type: 5, timestamp: T0, data: { source: 1 } }])).toBe(0);
  });

  it('sorts events inside a chunk by timestamp', () => {
    expect(activeMs([active(4000), active(0), active(2000)])).toBe(4000);
  });

  /** Straightforward reference of PostHog's segmentation over one sorted block. */
  function reference(events: { t: number; a: boolean }[]): number {
    const sorted = [...events].sort((x, y) => x.t - y.t);
    let total = 0;
    let seg: { start: number; end: number; active: boolean } | null = null;
    let lastActive = 0;
    const close = () => {
      if (seg && seg.active) total += Math.max(1, seg.end - seg.start);
    };
    for (const e of sorted) {
      let fresh = seg === null;
      if (e.a && !seg?.active) fresh = true;
      if (seg?.active && lastActive + 5000 < e.t) fresh = true;
      if (e.a) lastActive = e.t;
      if (fresh) {
        close();
        seg = { start: e.t, end: e.t, active: e.a };
      } else if (seg) {
        seg.end = e.t;
      }
    }
    close();
    return total;
  }

  function randomEvents(seed: number, n: number): { t: number; a: boolean }[] {
    let x = seed;
    const rnd = () => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x / 2147483648;
    };
    const out: { t: number; a: boolean }[] = [];
    let t = 0;
    for (let i = 0; i < n; i++) {
      t += Math.floor(rnd() < 0.15 ? rnd() * 20_000 : rnd() * 3000);
      out.push({ t, a: rnd() < 0.5 });
    }
    return out;
  }

  const toRRWeb = (e: { t: number; a: boolean }) => (e.a ? active(e.t) : mutation(e.t));

  it('matches a reference segmentation on random recordings, whole and chunked in order', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const events = randomEvents(seed, 120);
      const expected = reference(events);
      expect(activeMillisecondsOf(events.map((e) => ({ timestamp: e.t, active: e.a })))).toBe(expected);
      const rr = events.map(toRRWeb);
      expect(activeMilliseconds(foldEvents(emptyMetadata(), rr))).toBe(expected);
      let m = emptyMetadata();
      const step = 1 + (seed % 9);
      for (let i = 0; i < rr.length; i += step) m = foldEvents(m, rr.slice(i, i + step));
      expect(activeMilliseconds(m)).toBe(expected);
    }
  });

  it('is exact for out-of-order chunks of active events', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const events = randomEvents(seed, 60).map((e) => ({ ...e, a: true }));
      const expected = reference(events);
      const rr = events.map(toRRWeb);
      const pieces: RRWebEvent[][] = [];
      for (let i = 0; i < rr.length; i += 6) pieces.push(rr.slice(i, i + 6));
      pieces.reverse();
      let m = emptyMetadata();
      for (const p of pieces) m = foldEvents(m, p);
      expect(activeMilliseconds(m)).toBe(expected);
    }
  });

  it('is exact for shuffled chunks of mixed events while few inactive events are pending', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const events = randomEvents(seed * 7, 100);
      const expected = reference(events);
      const rr = events.map(toRRWeb);
      const pieces: RRWebEvent[][] = [];
      for (let i = 0; i < rr.length; i += 5) pieces.push(rr.slice(i, i + 5));
      // deterministic shuffle
      const order = pieces.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 31) - ((b * 7919 + seed) % 31));
      let m = emptyMetadata();
      for (const i of order) m = foldEvents(m, pieces[i]!);
      expect(activeMilliseconds(m), `seed ${seed}`).toBe(expected);
    }
  });

  it('bounds the remembered inactive timestamps and still extends late windows from them', () => {
    // a long idle stretch of DOM mutations, then a late chunk with activity just before some of them
    let m = foldEvents(
      emptyMetadata(),
      Array.from({ length: 1000 }, (_, i) => mutation(100_000 + i * 50)),
    );
    expect(m.activity.orphans.length).toBeLessThanOrEqual(MAX_ORPHAN_TIMESTAMPS);
    expect(activeMilliseconds(m)).toBe(0);
    m = foldEvents(m, [active(10_000), active(12_000)]);
    expect(activeMilliseconds(m)).toBe(2000);
    // last mutation is at 149_950; an activity at 146_000 reaches it (within 5 s): 146_000 → 149_950
    m = foldEvents(m, [active(146_000)]);
    expect(activeMilliseconds(m)).toBe(2000 + 3950);
  });

  it('keeps a bounded number of open windows and stays exact for in-order chunks', () => {
    // 100 bursts separated by 10 s idle gaps: 100 windows of 2000 ms each
    let m = emptyMetadata();
    for (let i = 0; i < 100; i++) {
      const base = i * 12_000;
      m = foldEvents(m, [active(base), active(base + 1000)]);
      m = foldEvents(m, [active(base + 2000), mutation(base + 9000)]);
    }
    expect(m.activity.windows.length).toBeLessThanOrEqual(MAX_OPEN_ACTIVITY_WINDOWS);
    expect(m.activity.orphans.length).toBeLessThanOrEqual(MAX_ORPHAN_TIMESTAMPS);
    expect(activeMilliseconds(m)).toBe(100 * 2000);
    // a very late chunk behind the sealed horizon is segmented on its own and added (PostHog block semantics)
    const late = foldEvents(m, [active(500), active(700)]);
    expect(activeMilliseconds(late)).toBe(100 * 2000 + 200);
  });
});

describe('foldBatch', () => {
  it('folds parsed batches with their window, distinct id, source and library', () => {
    const fixture = loadWebRecording();
    let m = emptyMetadata();
    for (const body of fixture.requests) {
      const parsed = parseSnapshotPayload(body);
      if (!parsed.ok) throw new Error(parsed.error.detail);
      for (const batch of parsed.batches) m = foldBatch(m, batch);
    }
    const s = summarizeMetadata(m);
    expect(s.distinct_id).toBe('user-42');
    expect(s.snapshot_library).toBe('web');
    expect(s.first_url).toBe(WEB_RECORDING_EXPECTED.firstUrl);
    expect(activeMilliseconds(m)).toBe(WEB_RECORDING_EXPECTED.activeMs);
    expect(m.size).toBe(foldAll(recordingChunks()).size);
  });
});

describe('other metadata rules', () => {
  it('ignores events without a positive numeric timestamp or type', () => {
    const m = foldEvents(emptyMetadata(), [
      { type: 3, timestamp: 0, data: { source: 2, type: 2 } },
      { type: 3, timestamp: -5, data: { source: 2, type: 2 } },
      { type: 3, timestamp: '1763701200000', data: { source: 2, type: 2 } },
      { type: '3', timestamp: T0, data: { source: 2, type: 2 } },
      null,
      'x',
      { type: 3, timestamp: T0, data: { source: 2, type: 2 } },
    ]);
    expect(m.eventCount).toBe(1);
    expect(m.clickCount).toBe(1);
  });

  it('returns the same metadata when a chunk has no valid event', () => {
    const m = emptyMetadata();
    expect(foldEvents(m, [])).toBe(m);
    expect(foldEvents(m, [{ type: 3 }])).toBe(m);
  });

  it('classifies every mouse interaction type', () => {
    const kinds: Record<number, boolean> = {
      0: false,
      1: false,
      2: true,
      3: true,
      4: true,
      5: false,
      6: false,
      7: false,
      8: false,
      9: true,
      10: false,
    };
    for (const [kind, click] of Object.entries(kinds)) {
      const m = foldEvents(emptyMetadata(), [{ type: 3, timestamp: T0, data: { source: 2, type: Number(kind) } }]);
      expect(m.clickCount, `interaction ${kind}`).toBe(click ? 1 : 0);
      expect(m.mouseActivityCount).toBe(1);
    }
  });

  it('maps console levels: unknown or missing levels are logs', () => {
    const log = (level: unknown) => ({ type: 6, timestamp: T0, data: { plugin: 'rrweb/console@1', payload: { level, payload: ['x'] } } });
    const m = foldEvents(emptyMetadata(), [
      log('log'),
      log('info'),
      log('debug'),
      log('dir'),
      log('table'),
      log(undefined),
      log(42),
      log('toString'),
      log('warn'),
      log('countReset'),
      log('error'),
      log('assert'),
      { type: 6, timestamp: T0, data: { plugin: 'rrweb/sequential-id@1', payload: { level: 'error' } } },
      { type: 6, timestamp: T0, data: { plugin: 'posthog/network@1', payload: {} } },
    ]);
    expect([m.consoleLogCount, m.consoleWarnCount, m.consoleErrorCount]).toEqual([8, 2, 2]);
  });

  it('first URL is the earliest href, whatever order chunks arrive in; blank hrefs are ignored', () => {
    let m = foldEvents(emptyMetadata(), [meta(5000, 'https://a.test/second')]);
    m = foldEvents(m, [
      meta(1000, '   '),
      { type: 5, timestamp: T0 + 2000, data: { tag: '$url_changed', payload: { href: ' https://a.test/first ' } } },
    ]);
    const s = summarizeMetadata(m);
    expect(s.start_url).toBe('https://a.test/first');
    expect(s.urls).toEqual(['https://a.test/second', 'https://a.test/first']);
  });

  it('keeps at most 25 distinct URLs, truncates long ones, and start_url to 512 characters', () => {
    const events = Array.from({ length: 40 }, (_, i) => meta(i, `https://a.test/${i}`));
    events.push(meta(100, 'https://a.test/0'));
    const m = foldEvents(emptyMetadata(), events);
    expect(m.urls).toHaveLength(25);
    const long = 'https://a.test/' + 'x'.repeat(5000);
    const m2 = foldEvents(emptyMetadata(), [meta(0, long)]);
    expect(m2.urls[0]).toHaveLength(4096);
    expect(summarizeMetadata(m2).start_url).toHaveLength(512);
  });

  it('takes distinct id, snapshot source and library from the context', () => {
    const m = foldEvents(emptyMetadata(), [active(0)], { distinctId: 'd1', snapshotSource: 'mobile', snapshotLibrary: 'posthog-ios' });
    const m2 = foldEvents(m, [active(10)], { distinctId: 'd2', snapshotSource: 'web' });
    const s = summarizeMetadata(m2);
    expect(s.distinct_id).toBe('d1');
    expect(s.snapshot_source).toBe('mobile');
    expect(s.snapshot_library).toBe('posthog-ios');
    // an earlier chunk arriving late wins the source (argMin by first timestamp)
    expect(summarizeMetadata(foldEvents(m2, [active(-100)], { snapshotSource: 'web' })).snapshot_source).toBe('web');
    expect(summarizeMetadata(foldEvents(emptyMetadata(), [active(0)])).snapshot_source).toBe('web');
  });

  it('empty metadata summarises to zeros and nulls', () => {
    const s = summarizeMetadata(emptyMetadata());
    expect(s).toMatchObject({
      start_time: null,
      end_time: null,
      recording_duration: 0,
      active_seconds: 0,
      inactive_seconds: 0,
      start_url: null,
      activity_score: 0,
    });
  });

  it('duration counts second boundaries like ClickHouse dateDiff', () => {
    expect(dateDiffSeconds(T0 + 900, T0 + 1100)).toBe(1);
    expect(dateDiffSeconds(T0 + 100, T0 + 999)).toBe(0);
    const s = summarizeMetadata(foldEvents(emptyMetadata(), [active(999), mutation(1001)]));
    expect(s.recording_duration).toBe(1);
    expect(s.active_seconds).toBe(0.002);
    expect(s.inactive_seconds).toBe(0.998);
  });

  it('inactive seconds never go negative', () => {
    // one lone active event: 1 ms active, 0 s duration
    const s = summarizeMetadata(foldEvents(emptyMetadata(), [active(0)]));
    expect(s.recording_duration).toBe(0);
    expect(s.active_seconds).toBe(0.001);
    expect(s.inactive_seconds).toBe(0);
  });

  it('activity score follows PostHog formula and rounds half to even', () => {
    expect(
      activityScore({
        activeSeconds: 10,
        clickCount: 5,
        keypressCount: 5,
        consoleErrorCount: 0,
        mouseActivityCount: 20,
        durationSeconds: 60,
        consoleLogCount: 10,
        consoleWarnCount: 10,
      }),
    ).toBe(20);
    expect(
      activityScore({
        activeSeconds: 0,
        clickCount: 1,
        keypressCount: 0,
        consoleErrorCount: 0,
        mouseActivityCount: 0,
        durationSeconds: 3,
        consoleLogCount: 0,
        consoleWarnCount: 0,
      }),
    ).toBe(33.33);
    expect(
      activityScore({
        activeSeconds: 1,
        clickCount: 0,
        keypressCount: 0,
        consoleErrorCount: 0,
        mouseActivityCount: 0,
        durationSeconds: 0,
        consoleLogCount: 0,
        consoleWarnCount: 0,
      }),
    ).toBe(0);
    expect(roundHalfEven2(0.125)).toBe(0.12);
    expect(roundHalfEven2(0.375)).toBe(0.38);
    expect(roundHalfEven2(12.3456)).toBe(12.35);
  });

  it('ongoing means ingested within the last five minutes', () => {
    const now = T0 + 3_600_000;
    expect(isOngoing(now - 299_000, now)).toBe(true);
    expect(isOngoing(now - 301_000, now)).toBe(false);
  });
});
