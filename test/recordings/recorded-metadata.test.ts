import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ACTIVITY_THRESHOLD_MS,
  activeMilliseconds,
  emptyMetadata,
  foldEvents,
  isActiveEvent,
  summarizeMetadata,
  type RRWebEvent,
} from '../../src/recordings/core/index.js';

/**
 * The metadata rules on a recording made by the real posthog-js in Chromium (saved by
 * browser-e2e.test.ts with HOGLET_RECORD_FIXTURE): page one gets 3 clicks on a button, a click
 * into a text box, "hello" typed, one console.log and one console.error; then a full navigation to
 * page two and one click there. Chunks are folded as they were posted.
 */
const fixture = JSON.parse(readFileSync(new URL('./fixtures/chromium-recording.json', import.meta.url), 'utf8')) as {
  chunks: { windowId: string; events: RRWebEvent[] }[];
};
const all = fixture.chunks.flatMap((c) => c.events);

function fold() {
  let meta = emptyMetadata();
  for (const chunk of fixture.chunks) meta = foldEvents(meta, chunk.events, { windowId: chunk.windowId, distinctId: 'd' });
  return meta;
}

/** PostHog's segmentation written plainly, over the whole sorted recording at once. */
function referenceActiveMs(events: RRWebEvent[]): number {
  const sorted = [...events].sort((a, b) => a.timestamp - b.timestamp);
  let total = 0;
  let segment: { start: number; lastActive: number; end: number } | undefined;
  const close = () => {
    if (segment) total += Math.max(1, segment.end - segment.start);
    segment = undefined;
  };
  for (const event of sorted) {
    const t = event.timestamp;
    if (isActiveEvent(event)) {
      if (segment && t - segment.lastActive <= ACTIVITY_THRESHOLD_MS) {
        segment.lastActive = t;
        segment.end = t;
      } else {
        close();
        segment = { start: t, lastActive: t, end: t };
      }
    } else if (segment && t - segment.lastActive <= ACTIVITY_THRESHOLD_MS) {
      segment.end = t;
    }
  }
  close();
  return total;
}

const interactions = (kind: number) =>
  all.filter((e) => e.type === 3 && (e.data as any).source === 2 && (e.data as any).type === kind).length;

describe('metadata of a real posthog-js recording', () => {
  it('counts clicks as Click/DblClick/ContextMenu/TouchEnd only, not the presses, releases and focus around them', () => {
    const s = summarizeMetadata(fold());
    expect(s.click_count).toBe(5);
    // Each click also produced a MouseDown and a MouseUp, and focusing the buttons and the text box
    // three Focus events: all mouse activity, none of them clicks.
    expect([interactions(1), interactions(0), interactions(5)]).toEqual([5, 5, 3]);
    expect(s.mouse_activity_count).toBe(all.filter((e) => e.type === 3 && [1, 2, 6].includes((e.data as any).source)).length);
    expect(s.mouse_activity_count).toBeGreaterThan(s.click_count);
  });

  it('counts one keypress per Input event and classifies the console plugin levels', () => {
    const s = summarizeMetadata(fold());
    expect(s.keypress_count).toBe(5);
    expect([s.console_log_count, s.console_warn_count, s.console_error_count]).toEqual([1, 0, 1]);
  });

  it('segments active time as PostHog does, folded chunk by chunk', () => {
    const meta = fold();
    expect(activeMilliseconds(meta)).toBe(referenceActiveMs(all));
    const s = summarizeMetadata(meta);
    expect(s.active_seconds).toBe(referenceActiveMs(all) / 1000);
    expect(s.inactive_seconds).toBeCloseTo(Math.max(s.recording_duration - s.active_seconds, 0), 3);
  });

  it('takes the first page as start URL and keeps both pages', () => {
    const s = summarizeMetadata(fold());
    expect(s.start_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(s.urls).toEqual([s.start_url, `${s.start_url}second`]);
    expect(s.event_count).toBe(all.length);
    expect(s.snapshot_source).toBe('web');
  });
});
