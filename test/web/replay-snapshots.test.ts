/**
 * The replay page's reading of stored lines (web/src/pages/replay/snapshots.ts), on a recording
 * posthog-js made in Chromium (test/recordings/fixtures/chromium-recording.json: full snapshots and
 * mutations gzipped as `cv: "2024-10"`): plain rrweb events in time order, clicks named by their
 * element, console lines with their level.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clickItems, consoleItems, toPlayerEvents } from '../../web/src/pages/replay/snapshots.js';

interface Fixture {
  chunks: { windowId: string; events: Record<string, unknown>[] }[];
}

const fixture = JSON.parse(readFileSync(new URL('../recordings/fixtures/chromium-recording.json', import.meta.url), 'utf8')) as Fixture;
/** The lines the snapshots API answers: `[windowId, event]`, as stored. */
const lines = fixture.chunks.flatMap((chunk) => chunk.events.map((event) => JSON.stringify([chunk.windowId, event])));

describe("the replay page's snapshots", () => {
  it('inflates compressed events into plain rrweb events, in time order, skipping broken lines', async () => {
    expect(fixture.chunks.some((c) => c.events.some((e) => e.cv === '2024-10'))).toBe(true);
    const events = await toPlayerEvents(['not json', '["w", 42]', ...[...lines].reverse()]);
    expect(events).toHaveLength(lines.length);
    expect(events.every((e) => !('cv' in e))).toBe(true);
    expect(events.map((e) => e.timestamp)).toEqual([...events.map((e) => e.timestamp)].sort((a, b) => a - b));
    const full = events.filter((e) => e.type === 2);
    expect(full.length).toBeGreaterThan(0);
    for (const event of full) expect(typeof event.data).toBe('object');
    expect(JSON.stringify(full[0]!.data)).toContain('"id":"buy"');
  });

  it('names clicks by their element and reads console lines with their level', async () => {
    const events = await toPlayerEvents(lines);
    const clicks = clickItems(events).map((c) => c.label);
    expect(clicks.filter((label) => label === 'button#buy "Buy"')).toHaveLength(3);
    expect(clicks).toContain('input#q');
    expect(clicks).toContain('button#again "Again"');
    const consoleLines = consoleItems(events).map((c) => [c.level, c.label]);
    expect(consoleLines).toEqual([
      ['log', 'one log line'],
      ['error', 'one error line'],
    ]);
  });
});
