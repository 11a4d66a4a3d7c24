/**
 * Incremental recording metadata: what PostHog stores per recording in `session_replay_events` and
 * serves as the session recording object (start/end, duration, active and inactive seconds, click,
 * keypress, mouse-activity and console counts, start URL, activity score...).
 *
 * Usage: `let meta = emptyMetadata(); meta = foldEvents(meta, chunk, {windowId}); ... summarizeMetadata(meta)`
 * (recording-summary.ts turns the state into the API's fields).
 * The state is a small plain JSON object (persist it between chunks); its size does not grow with the
 * number of events: at most {@link MAX_URLS} URLs, {@link MAX_OPEN_ACTIVITY_WINDOWS} activity windows and
 * {@link MAX_ORPHAN_TIMESTAMPS} timestamps.
 *
 * Rules (PostHog plugin-server `session-recording-v2`: `rrweb-types.ts`, `segmentation.ts`,
 * `snappy-session-recorder.ts`, `session-console-log-recorder.ts`; Django `session_recording_list_from_query.py`):
 * - events without a positive numeric timestamp are ignored entirely;
 * - first/last timestamp: min/max rrweb timestamp (ms);
 * - click_count: IncrementalSnapshot / MouseInteraction with Click, DblClick, ContextMenu or TouchEnd;
 * - keypress_count: IncrementalSnapshot / Input; mouse_activity_count: MouseMove, MouseInteraction, TouchMove;
 * - console counts: Plugin events of `rrweb/console@1`; warn+countReset → warn, error+assert → error, other → log;
 * - first URL: the href (Meta `data.href` or Custom `data.payload.href`) with the earliest timestamp
 *   (PostHog: argMin over blocks by block start, first in arrival order inside a block); up to 25 distinct
 *   URLs kept, each truncated to 4096 characters;
 * - size: UTF-8 bytes of the stored JSONL line `[windowId, event]\n` of every event (PostHog v2 blocks);
 * - active time: see {@link foldEvents}; `activity_score` per PostHog's listing query.
 */
import { consoleCategory, hrefFrom, isActiveEvent, isClick, isKeypress, isMouseActivity, asRRWebEvent, type RRWebEvent } from './rrweb.js';
import type { SnapshotBatch } from './snapshot-event.js';

/** An active segment continues while active events are at most this far apart (PostHog `ACTIVITY_THRESHOLD_MS`). */
export const ACTIVITY_THRESHOLD_MS = 5000;
/** Activity windows kept open for late (out-of-order) events before being sealed into a running total. */
export const MAX_OPEN_ACTIVITY_WINDOWS = 32;
/** Inactive timestamps kept for windows that late events may still create. */
export const MAX_ORPHAN_TIMESTAMPS = 128;
export const MAX_URLS = 25;
export const MAX_URL_LENGTH = 4096;
/** `start_url` of the recording object is truncated to this many characters. */
export const START_URL_MAX_LENGTH = 512;
/** PostHog's `ongoing`: something was ingested for the recording within the last 5 minutes. */
export const ONGOING_WINDOW_MS = 5 * 60 * 1000;

/**
 * One active segment: from its first active event (`start`) through `lastActive`; `end` is the last event
 * of any kind at most {@link ACTIVITY_THRESHOLD_MS} after `lastActive`.
 */
export interface ActivityWindow {
  start: number;
  lastActive: number;
  end: number;
}

export interface ActivityState {
  /** Active milliseconds of sealed windows and of late events that arrived behind the horizon. */
  sealedMs: number;
  /** Events at or before this timestamp can no longer be merged into windows exactly. 0 = nothing sealed. */
  horizon: number;
  /** Open windows, sorted by start, pairwise more than the threshold apart. */
  windows: ActivityWindow[];
  /**
   * Sorted timestamps of inactive events that fell in no window's tail (only out-of-order chunks leave
   * any): a window created later by a late active event can still be extended by them. At most
   * {@link MAX_ORPHAN_TIMESTAMPS}; when full, the one closest to its successor is dropped.
   */
  orphans: number[];
}

export interface RecordingMetadata {
  distinctId: string | null;
  /** Epoch ms of the earliest event, null before any event. */
  firstTimestamp: number | null;
  /** Epoch ms of the latest event. */
  lastTimestamp: number | null;
  firstUrl: string | null;
  firstUrlTimestamp: number | null;
  urls: string[];
  clickCount: number;
  keypressCount: number;
  mouseActivityCount: number;
  consoleLogCount: number;
  consoleWarnCount: number;
  consoleErrorCount: number;
  eventCount: number;
  /** Bytes of the stored JSONL lines. */
  size: number;
  /** Number of folds (messages) that contained at least one valid event. */
  messageCount: number;
  snapshotSource: string | null;
  snapshotSourceTimestamp: number | null;
  snapshotLibrary: string | null;
  activity: ActivityState;
}

/** Per-chunk context: where the events came from. */
export interface FoldContext {
  /** `$window_id` of the chunk; part of the stored line counted in `size`. Defaults to `""`. */
  windowId?: string;
  distinctId?: string;
  /** `$snapshot_source`; defaults to `"web"`. */
  snapshotSource?: string;
  snapshotLibrary?: string | null;
}

export function emptyMetadata(): RecordingMetadata {
  return {
    distinctId: null,
    firstTimestamp: null,
    lastTimestamp: null,
    firstUrl: null,
    firstUrlTimestamp: null,
    urls: [],
    clickCount: 0,
    keypressCount: 0,
    mouseActivityCount: 0,
    consoleLogCount: 0,
    consoleWarnCount: 0,
    consoleErrorCount: 0,
    eventCount: 0,
    size: 0,
    messageCount: 0,
    snapshotSource: null,
    snapshotSourceTimestamp: null,
    snapshotLibrary: null,
    activity: { sealedMs: 0, horizon: 0, windows: [], orphans: [] },
  };
}

interface Mark {
  ts: number;
  active: boolean;
}

const encoder = new TextEncoder();

function utf8Length(text: string): number {
  // Fast path for ASCII-only text; TextEncoder otherwise.
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : encoder.encode(text).length;
}

function windowMs(w: ActivityWindow): number {
  return Math.max(1, w.end - w.start);
}

function insertActive(state: Pick<ActivityState, 'windows' | 'orphans'>, t: number): void {
  const { windows } = state;
  let lo = -1;
  let hi = -1;
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i]!;
    if (t >= w.start - ACTIVITY_THRESHOLD_MS && t <= w.lastActive + ACTIVITY_THRESHOLD_MS) {
      if (lo < 0) lo = i;
      hi = i;
    }
  }
  let merged: ActivityWindow;
  if (lo < 0) {
    let at = windows.length;
    while (at > 0 && windows[at - 1]!.start > t) at--;
    merged = { start: t, lastActive: t, end: t };
    windows.splice(at, 0, merged);
  } else {
    merged = { start: t, lastActive: t, end: t };
    for (let i = lo; i <= hi; i++) {
      const w = windows[i]!;
      merged.start = Math.min(merged.start, w.start);
      merged.lastActive = Math.max(merged.lastActive, w.lastActive);
      merged.end = Math.max(merged.end, w.end);
    }
    windows.splice(lo, hi - lo + 1, merged);
  }
  absorbOrphans(state.orphans, merged);
}

/** Inactive timestamps now inside the window or its tail extend it and are no longer needed. */
function absorbOrphans(orphans: number[], w: ActivityWindow): void {
  if (orphans.length === 0) return;
  const limit = w.lastActive + ACTIVITY_THRESHOLD_MS;
  let write = 0;
  for (const t of orphans) {
    if (t >= w.start && t <= limit) {
      if (t > w.end) w.end = t;
    } else {
      orphans[write++] = t;
    }
  }
  orphans.length = write;
}

function insertInactive(state: Pick<ActivityState, 'windows' | 'orphans'>, t: number): void {
  const { windows, orphans } = state;
  for (let i = windows.length - 1; i >= 0; i--) {
    const w = windows[i]!;
    if (t >= w.start && t <= w.lastActive) return;
    if (t > w.lastActive && t <= w.lastActive + ACTIVITY_THRESHOLD_MS) {
      if (t > w.end) w.end = t;
      return;
    }
  }
  // Not covered by any window: only matters if a late active event opens a window just before it.
  let at = orphans.length;
  while (at > 0 && orphans[at - 1]! > t) at--;
  if (at > 0 && orphans[at - 1] === t) return;
  orphans.splice(at, 0, t);
  if (orphans.length > MAX_ORPHAN_TIMESTAMPS) {
    let drop = 0;
    let smallest = Number.POSITIVE_INFINITY;
    for (let i = 0; i + 1 < orphans.length; i++) {
      const gap = orphans[i + 1]! - orphans[i]!;
      if (gap < smallest) {
        smallest = gap;
        drop = i;
      }
    }
    orphans.splice(drop, 1);
  }
}

/**
 * PostHog's active milliseconds for one self-contained list of events (one "block"): sort by time,
 * split into segments, sum active segments (each at least 1 ms).
 */
export function activeMillisecondsOf(events: readonly { timestamp: number; active: boolean }[]): number {
  const state = { windows: [] as ActivityWindow[], orphans: [] as number[] };
  const sorted = [...events].sort((a, b) => a.timestamp - b.timestamp);
  for (const e of sorted) {
    if (e.active) insertActive(state, e.timestamp);
    else insertInactive(state, e.timestamp);
  }
  return state.windows.reduce((sum, w) => sum + windowMs(w), 0);
}

/** Active milliseconds recorded so far. */
export function activeMilliseconds(meta: RecordingMetadata): number {
  return meta.activity.windows.reduce((sum, w) => sum + windowMs(w), meta.activity.sealedMs);
}

/**
 * Fold one chunk of rrweb events into the metadata and return the new metadata (the input is not mutated).
 * Invalid items (no numeric type, no positive timestamp) are skipped.
 *
 * Active time is PostHog's segmentation (active = IncrementalSnapshot with source mouse move, mouse
 * interaction, scroll, viewport resize, input, touch move, media interaction or drag; a segment starts at an
 * active event and ends once no active event followed for more than 5000 ms; each active segment counts
 * its duration, at least 1 ms). It is computed as one block over the whole recording:
 * - chunks in time order (each chunk's events no earlier than everything folded before, the normal case):
 *   folding chunk by chunk gives exactly the result of folding everything at once;
 * - chunks slightly out of order (another tab's batch, a retry): late events merge into the open windows
 *   exactly; inactive events that fell in no window are remembered (up to {@link MAX_ORPHAN_TIMESTAMPS},
 *   thinned where densest beyond that) so a window opened later by a late active event still gets its tail;
 * - events older than the sealed horizon (more than {@link MAX_OPEN_ACTIVITY_WINDOWS} windows back) are
 *   segmented on their own and added, which is what PostHog does with every block.
 * Counts, timestamps, size and the first URL are order-independent.
 */
export function foldEvents(meta: RecordingMetadata, events: readonly unknown[], context: FoldContext = {}): RecordingMetadata {
  const valid: RRWebEvent[] = [];
  for (const item of events) {
    const event = asRRWebEvent(item);
    if (event) valid.push(event);
  }
  if (valid.length === 0) return meta;

  const next: RecordingMetadata = {
    ...meta,
    urls: [...meta.urls],
    activity: {
      sealedMs: meta.activity.sealedMs,
      horizon: meta.activity.horizon,
      windows: meta.activity.windows.map((w) => ({ ...w })),
      orphans: [...(meta.activity.orphans ?? [])],
    },
  };
  const windowId = context.windowId ?? '';
  const marks: Mark[] = [];
  let chunkMin = Number.POSITIVE_INFINITY;

  for (const event of valid) {
    const ts = event.timestamp;
    if (ts < chunkMin) chunkMin = ts;
    if (next.firstTimestamp === null || ts < next.firstTimestamp) next.firstTimestamp = ts;
    if (next.lastTimestamp === null || ts > next.lastTimestamp) next.lastTimestamp = ts;

    if (isClick(event)) next.clickCount += 1;
    if (isKeypress(event)) next.keypressCount += 1;
    if (isMouseActivity(event)) next.mouseActivityCount += 1;
    const level = consoleCategory(event);
    if (level === 'log') next.consoleLogCount += 1;
    else if (level === 'warn') next.consoleWarnCount += 1;
    else if (level === 'error') next.consoleErrorCount += 1;

    const href = hrefFrom(event);
    if (href !== undefined) {
      const url = href.length > MAX_URL_LENGTH ? href.slice(0, MAX_URL_LENGTH) : href;
      if (next.firstUrlTimestamp === null || ts < next.firstUrlTimestamp) {
        next.firstUrl = url;
        next.firstUrlTimestamp = ts;
      }
      if (next.urls.length < MAX_URLS && !next.urls.includes(url)) next.urls.push(url);
    }

    next.eventCount += 1;
    next.size += utf8Length(JSON.stringify([windowId, event])) + 1;
    marks.push({ ts, active: isActiveEvent(event) });
  }

  next.messageCount += 1;
  if (next.distinctId === null && context.distinctId) next.distinctId = context.distinctId;
  if (next.snapshotSourceTimestamp === null || chunkMin < next.snapshotSourceTimestamp) {
    next.snapshotSource = context.snapshotSource || next.snapshotSource || 'web';
    next.snapshotSourceTimestamp = chunkMin;
  }
  if (next.snapshotLibrary === null && context.snapshotLibrary) next.snapshotLibrary = context.snapshotLibrary;

  foldActivity(next.activity, marks);
  return next;
}

/** {@link foldEvents} with the context of a batch from `parseSnapshotPayload`. */
export function foldBatch(meta: RecordingMetadata, batch: SnapshotBatch): RecordingMetadata {
  return foldEvents(meta, batch.events, {
    windowId: batch.windowId,
    distinctId: batch.distinctId,
    snapshotSource: batch.snapshotSource,
    snapshotLibrary: batch.snapshotLibrary,
  });
}

function foldActivity(state: ActivityState, marks: Mark[]): void {
  marks.sort((a, b) => a.ts - b.ts);
  const late: { timestamp: number; active: boolean }[] = [];
  for (const mark of marks) {
    if (state.horizon > 0 && mark.ts <= state.horizon) {
      late.push({ timestamp: mark.ts, active: mark.active });
      continue;
    }
    if (mark.active) insertActive(state, mark.ts);
    else insertInactive(state, mark.ts);
    while (state.windows.length > MAX_OPEN_ACTIVITY_WINDOWS) {
      const sealed = state.windows.shift()!;
      state.sealedMs += windowMs(sealed);
      state.horizon = Math.max(state.horizon, sealed.lastActive + ACTIVITY_THRESHOLD_MS);
      const horizon = state.horizon;
      const kept = state.orphans.filter((t) => t > horizon);
      state.orphans.length = 0;
      state.orphans.push(...kept);
    }
  }
  if (late.length > 0) state.sealedMs += activeMillisecondsOf(late);
}
