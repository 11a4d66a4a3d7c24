/**
 * The Activity page in Chromium against a real Hoglet, paging: "Load older events" shows every
 * stored event exactly once when a page ends inside a run of events of one timestamp (and when
 * more than a page share one), the live tail shows every event that arrived between two polls,
 * more than a page of them, and a full list says so. The list is virtualized (only the rows in
 * view are in the page), so the rows are read by scrolling through it. (The paging itself,
 * against a stand-in for the query: activity-pages.test.ts.)
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectNoPageErrors } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { useSignedIn } from './signed-in.js';

const server = useTestServer();
const ui = useSignedIn(server);

/** Within the default range (the last 24 hours), to the millisecond. */
const BASE = Date.now() - 3_600_000;
const iso = (ms: number) => new Date(BASE + ms).toISOString();

/**
 * 620 events, newest first: 0–189 one a millisecond; 190–259 at one time (the first page of 200
 * ends inside it); 260–299 one a millisecond; 300–559 at one time (more than a page: the page of
 * 400 ends inside it); 560–619 one a millisecond.
 */
const STORED = Array.from({ length: 620 }, (_, i) => {
  const ms = i < 190 ? -i : i < 260 ? -1_000 : i < 300 ? -2_000 - i : i < 560 ? -5_000 : -6_000 - i;
  return { event: `paged ${i}`, distinct_id: `pager-${i % 5}`, timestamp: iso(ms), properties: { i } };
});
/** 450 events newer than those, in runs of 7 of one millisecond. */
const ARRIVING = Array.from({ length: 450 }, (_, i) => ({
  event: `arrived ${i}`,
  distinct_id: 'arriver',
  timestamp: iso(1_000 + Math.floor(i / 7)),
  properties: { i },
}));

const rows = (page: Page) => page.getByTestId('event-row');
/** What the tests read of a row in the browser (the tests' TypeScript has no DOM types). */
type Styled = { offsetHeight: number; style: { transform: string } };

/** The number of rows the list scrolls through (its height in rows). */
async function listLength(page: Page): Promise<number> {
  return rows(page)
    .first()
    .evaluate((row) => Math.round((row.parentElement as unknown as Styled).offsetHeight / (row as unknown as Styled).offsetHeight));
}

/** Every row's event name, top to bottom, read by scrolling the list a few rows at a time. */
async function shownEventNames(page: Page): Promise<string[]> {
  const table = page.getByTestId('events-table');
  const rowHeight = await rows(page)
    .first()
    .evaluate((row) => (row as unknown as Styled).offsetHeight);
  const length = await listLength(page);
  const names = new Map<number, string>();
  const read = async () => {
    const rendered = await rows(page).evaluateAll((list) =>
      list.map((row) => [(row as unknown as Styled).style.transform, row.querySelector('[role="cell"]')?.textContent ?? ''] as const),
    );
    for (const [transform, name] of rendered) {
      const top = Number(/translateY\(([\d.]+)px\)/.exec(transform)?.[1]);
      names.set(Math.round(top / rowHeight), name);
    }
  };
  const STEP = 8;
  for (let first = 0; first < length; first += STEP) {
    await table.evaluate((el, top) => {
      el.scrollTop = top;
    }, first * rowHeight);
    // The rows scrolled to are in the page once the list has rendered them.
    await expect
      .poll(async () => {
        await read();
        return Array.from({ length: Math.min(STEP, length - first) }, (_, k) => names.has(first + k)).every(Boolean);
      })
      .toBe(true);
  }
  return Array.from({ length }, (_, i) => names.get(i)!);
}

describe('Activity pages through every event', () => {
  it('"Load older events" shows every event once when a page ends inside a run of one timestamp', async () => {
    await server.ingest(STORED);
    await ui.page.goto(`${server.url}/project/${ui.env}/activity?live=off`);
    await rows(ui.page).first().waitFor();
    await expect.poll(() => listLength(ui.page)).toBe(200);

    const older = ui.page.getByRole('button', { name: 'Load older events' });
    for (let clicks = 0; (await older.count()) > 0; clicks++) {
      // 620 events: three more pages (four with the run longer than a page).
      expect(clicks).toBeLessThan(6);
      const before = await listLength(ui.page);
      await older.click();
      // Each click brings new events, or shows there are no more.
      await expect.poll(async () => (await older.count()) === 0 || (await listLength(ui.page)) > before).toBe(true);
    }

    const names = await shownEventNames(ui.page);
    expect(names).toHaveLength(STORED.length);
    expect(new Set(names).size).toBe(STORED.length);
    expect(new Set(names)).toEqual(new Set(STORED.map((e) => e.event)));
    expectNoPageErrors(ui.watched);
  });

  it('the live tail shows every event that arrived between two polls, more than a page of them', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/activity?live=off`);
    await rows(ui.page).first().waitFor();
    await expect.poll(() => listLength(ui.page)).toBe(200);
    // All of them stored before the next poll.
    await server.ingest(ARRIVING);
    await ui.page.getByRole('switch', { name: 'Live' }).click();
    await ui.page.waitForURL((url) => !url.searchParams.has('live'));

    await expect.poll(() => listLength(ui.page)).toBe(200 + ARRIVING.length);
    const names = await shownEventNames(ui.page);
    expect(new Set(names).size).toBe(names.length);
    // Newest first: every arrival, above the first page shown before (paged 0–189 and 10 of the
    // run of one timestamp after them, whichever the query orders first).
    expect(new Set(names.slice(0, ARRIVING.length))).toEqual(new Set(ARRIVING.map((e) => e.event)));
    const before = names.slice(ARRIVING.length);
    expect(before.slice(0, 190)).toEqual(STORED.slice(0, 190).map((e) => e.event));
    const run = new Set(STORED.slice(190, 260).map((e) => e.event));
    expect(before.slice(190).every((name) => run.has(name))).toBe(true);
    expectNoPageErrors(ui.watched);
  });

  it('says when the list is full rather than offering older events it cannot hold', async () => {
    // 1,070 events so far; 1,000 older ones make more than the list's 2,000.
    await server.ingest(
      Array.from({ length: 1_000 }, (_, i) => ({ event: `older ${i}`, distinct_id: 'old', timestamp: iso(-60_000 - i), properties: {} })),
    );
    await ui.page.goto(`${server.url}/project/${ui.env}/activity?live=off`);
    await expect.poll(() => listLength(ui.page)).toBe(200);
    const older = ui.page.getByRole('button', { name: 'Load older events' });
    const full = ui.page.getByTestId('events-list-full');
    for (let clicks = 0; (await full.count()) === 0; clicks++) {
      expect(clicks).toBeLessThan(12);
      const before = await listLength(ui.page);
      await older.click();
      await expect.poll(async () => (await full.count()) > 0 || (await listLength(ui.page)) > before).toBe(true);
    }
    expect(await listLength(ui.page)).toBe(2_000);
    expect(await full.textContent()).toContain('The newest 2,000 events are shown');
    expect(await older.count()).toBe(0);
    expectNoPageErrors(ui.watched);
  });
});
