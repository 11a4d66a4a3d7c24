/**
 * A recording's metadata state (metadata.ts) as the fields the management API serves: start/end,
 * whole-second duration as ClickHouse computes it, active and inactive seconds, counts, start URL,
 * PostHog's activity score, and whether the recording is still ongoing.
 */
import { activeMilliseconds, ONGOING_WINDOW_MS, START_URL_MAX_LENGTH, type RecordingMetadata } from './metadata.js';

/** The recording's fields as the management API exposes them (plus a few storage-side extras). */
export interface RecordingSummary {
  distinct_id: string | null;
  start_time: string | null;
  end_time: string | null;
  /** Whole seconds, ClickHouse `dateDiff('second', start, end)` (second boundaries crossed). */
  recording_duration: number;
  active_seconds: number;
  inactive_seconds: number;
  click_count: number;
  keypress_count: number;
  mouse_activity_count: number;
  console_log_count: number;
  console_warn_count: number;
  console_error_count: number;
  /** First URL, truncated to 512 characters; falls back to the first URL seen without its query string. */
  start_url: string | null;
  /** First URL as stored (up to 4096 characters), null when no event announced one. */
  first_url: string | null;
  urls: string[];
  snapshot_source: string;
  snapshot_library: string | null;
  event_count: number;
  size: number;
  message_count: number;
  activity_score: number;
}

/** ClickHouse `dateDiff('second', a, b)` on millisecond timestamps: whole-second boundaries crossed. */
export function dateDiffSeconds(startMs: number, endMs: number): number {
  return Math.floor(endMs / 1000) - Math.floor(startMs / 1000);
}

/** ClickHouse `round(x, 2)` on a Float64: nearest, ties to even. */
export function roundHalfEven2(value: number): number {
  if (!Number.isFinite(value)) return 0;
  const scaled = value * 100;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  let rounded: number;
  if (Math.abs(diff - 0.5) < 1e-9) rounded = floor % 2 === 0 ? floor : floor + 1;
  else rounded = Math.round(scaled);
  return rounded / 100;
}

/**
 * PostHog's activity score (recordings listing query):
 * `round((active_seconds + clicks + keypresses + console_errors) /
 *        (mouse_activity + duration + console_errors + console_logs + console_warns) * 100, 2)`.
 * ClickHouse yields inf/nan when the denominator is 0; this returns 0 then (JSON has no inf/nan).
 */
export function activityScore(input: {
  activeSeconds: number;
  clickCount: number;
  keypressCount: number;
  mouseActivityCount: number;
  durationSeconds: number;
  consoleLogCount: number;
  consoleWarnCount: number;
  consoleErrorCount: number;
}): number {
  const intent = input.activeSeconds + input.clickCount + input.keypressCount + input.consoleErrorCount;
  const total = input.mouseActivityCount + input.durationSeconds + input.consoleErrorCount + input.consoleLogCount + input.consoleWarnCount;
  if (total === 0) return 0;
  return roundHalfEven2((intent / total) * 100);
}

/** Strip the query string and fragment of a URL (PostHog's fallback start URL). */
function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/);
  return cut >= 0 ? url.slice(0, cut) : url;
}

export function summarizeMetadata(meta: RecordingMetadata): RecordingSummary {
  const duration =
    meta.firstTimestamp !== null && meta.lastTimestamp !== null ? dateDiffSeconds(meta.firstTimestamp, meta.lastTimestamp) : 0;
  const activeSeconds = activeMilliseconds(meta) / 1000;
  const inactiveSeconds = Math.max(duration - activeSeconds, 0);
  const rawStart = meta.firstUrl ?? (meta.urls[0] !== undefined ? withoutQuery(meta.urls[0]) : null);
  return {
    distinct_id: meta.distinctId,
    start_time: meta.firstTimestamp !== null ? new Date(meta.firstTimestamp).toISOString() : null,
    end_time: meta.lastTimestamp !== null ? new Date(meta.lastTimestamp).toISOString() : null,
    recording_duration: duration,
    active_seconds: activeSeconds,
    inactive_seconds: Number(inactiveSeconds.toFixed(3)),
    click_count: meta.clickCount,
    keypress_count: meta.keypressCount,
    mouse_activity_count: meta.mouseActivityCount,
    console_log_count: meta.consoleLogCount,
    console_warn_count: meta.consoleWarnCount,
    console_error_count: meta.consoleErrorCount,
    start_url: rawStart === null ? null : rawStart.slice(0, START_URL_MAX_LENGTH),
    first_url: meta.firstUrl,
    urls: [...meta.urls],
    snapshot_source: meta.snapshotSource ?? 'web',
    snapshot_library: meta.snapshotLibrary,
    event_count: meta.eventCount,
    size: meta.size,
    message_count: meta.messageCount,
    activity_score: activityScore({
      activeSeconds,
      clickCount: meta.clickCount,
      keypressCount: meta.keypressCount,
      mouseActivityCount: meta.mouseActivityCount,
      durationSeconds: duration,
      consoleLogCount: meta.consoleLogCount,
      consoleWarnCount: meta.consoleWarnCount,
      consoleErrorCount: meta.consoleErrorCount,
    }),
  };
}

/** PostHog's `ongoing`: the last ingestion for the recording happened less than 5 minutes before `now`. */
export function isOngoing(lastIngestedAtMs: number, nowMs: number): boolean {
  return lastIngestedAtMs >= nowMs - ONGOING_WINDOW_MS;
}
