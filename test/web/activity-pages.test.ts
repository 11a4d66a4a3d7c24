/**
 * How the Activity page pages through the events query (web/src/pages/activity/event-pages.ts),
 * against a stand-in for the query as src/events/events-query-store.ts runs it: newest first by
 * timestamp then uuid (here a uuid order unlike the page's own, as ClickHouse's UUID order may be),
 * `after` inclusive, `before` exclusive and read to the millisecond, `limit` rows and `hasMore`.
 * Reading older pages skips none of the events that share the oldest one's millisecond, repeats
 * none, and makes progress when more than a page share it; a live poll reads every event that
 * arrived, however many. The module imports only types, so it runs under Node.
 */
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../web/src/api/types.js';
import { fetchNewer, MAX_ROWS, mergeEvents, olderRequest, PAGE, timeKey } from '../../web/src/pages/activity/event-pages.js';

const BASE = Date.parse('2025-03-01T12:00:00.000Z');

function event(n: number, timestamp: string): EventRow {
  const uuid = `0195${n.toString(16).padStart(4, '0')}-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
  return { uuid, event: `e${n}`, properties: { n }, timestamp, distinct_id: 'd', elements_chain: '', created_at: timestamp };
}

/** An ISO time `ms` after BASE, with `micros` more (written as the API writes it). */
function at(ms: number, micros = 0): string {
  const iso = new Date(BASE + ms).toISOString();
  return micros === 0 ? iso : iso.replace('Z', `${String(micros).padStart(3, '0')}Z`);
}

/** Microseconds since the epoch. */
function micros(timestamp: string): number {
  const match = /^(.*\.\d{3})(\d{3})?Z$/.exec(timestamp)!;
  return Date.parse(`${match[1]}Z`) * 1000 + Number(match[2] ?? 0);
}

/** The events query over `stored`, as the server answers it. */
function server(stored: EventRow[]) {
  const requests: Array<{ after?: string | null; before?: string | null; limit: number }> = [];
  // Ties broken by uuid, in an order unlike the page's (the last characters first).
  const tie = (e: EventRow) => [...e.uuid].reverse().join('');
  const query = (request: { after?: string | null; before?: string | null; limit: number }) => {
    requests.push(request);
    // The server reads `before` and `after` into a JS Date: to the millisecond.
    const before = request.before ? Date.parse(request.before) * 1000 : Infinity;
    const after = request.after ? Date.parse(request.after) * 1000 : -Infinity;
    const rows = stored
      .filter((e) => micros(e.timestamp) < before && micros(e.timestamp) >= after)
      .sort((a, b) => micros(b.timestamp) - micros(a.timestamp) || (tie(a) < tie(b) ? 1 : tie(a) > tie(b) ? -1 : 0));
    return Promise.resolve({ events: rows.slice(0, request.limit), hasMore: rows.length > request.limit });
  };
  return { query, requests };
}

/** Reads the first page, then older pages until there are none, as "Load older events" does. */
async function readAll(stored: EventRow[], bound: string | null = null) {
  const { query, requests } = server(stored);
  const first = await query({ before: bound, limit: PAGE });
  let events = first.events;
  let hasOlder = first.hasMore;
  while (hasOlder) {
    expect(requests.length).toBeLessThan(100);
    const page = await query(olderRequest(events.at(-1)!, events, bound));
    events = mergeEvents(events, page.events);
    hasOlder = page.hasMore;
  }
  return { events, requests };
}

const uuids = (events: EventRow[]) => events.map((e) => e.uuid);

describe('reading older events', () => {
  it('asks up to the end of the oldest event’s millisecond, a page more than it holds in that millisecond', () => {
    const held = [event(1, at(5)), event(2, at(3)), event(3, at(3, 250)), event(4, at(3))];
    expect(olderRequest(held[3]!, held)).toEqual({ before: at(4), limit: PAGE + 3 });
    expect(olderRequest(held[3]!, held, at(20))).toEqual({ before: at(4), limit: PAGE + 3 });
    expect(olderRequest(event(5, at(9)), [])).toEqual({ before: at(10), limit: PAGE });
  });

  it('shows every event once when a page ends inside a run of events of one time', async () => {
    // Newest first: 0–189 one per millisecond, 190–259 one millisecond (the first page ends at 199),
    // 260–299 one per millisecond, 300–559 one millisecond (more than a page), then 560–619.
    const stored: EventRow[] = [];
    for (let i = 0; i < 620; i++) {
      const ms = i < 190 ? 10_000 - i : i < 260 ? 5_000 : i < 300 ? 4_000 - i : i < 560 ? 1_000 : 900 - i;
      stored.push(event(i, at(ms)));
    }
    const all = await readAll(stored);
    expect(all.events).toHaveLength(620);
    expect(new Set(uuids(all.events)).size).toBe(620);
    expect(new Set(uuids(all.events))).toEqual(new Set(uuids(stored)));
    // A page of new events a request, but for the run longer than a page.
    expect(all.requests.length).toBeLessThanOrEqual(5);
  });

  it('makes progress through more than two pages of events of one millisecond, microseconds apart or equal', async () => {
    const stored: EventRow[] = [];
    for (let i = 0; i < 30; i++) stored.push(event(i, at(2_000 + i)));
    for (let i = 30; i < 530; i++) stored.push(event(i, at(1_000, i % 3 === 0 ? 0 : i % 1000)));
    for (let i = 530; i < 560; i++) stored.push(event(i, at(500 - i)));
    const { events } = await readAll(stored);
    expect(events).toHaveLength(560);
    expect(new Set(uuids(events))).toEqual(new Set(uuids(stored)));
    // Newest first, microseconds counted.
    const keys = events.map((e) => timeKey(e.timestamp));
    expect(keys).toEqual([...keys].sort().reverse());
  });

  it('keeps within the filters’ own end', async () => {
    const stored = Array.from({ length: 450 }, (_, i) => event(i, at(1_000 - Math.floor(i / 3))));
    const bound = at(900);
    const { events, requests } = await readAll(stored, bound);
    expect(new Set(uuids(events))).toEqual(new Set(uuids(stored.filter((e) => Date.parse(e.timestamp) < Date.parse(bound)))));
    for (const request of requests) expect(Date.parse(request.before!)).toBeLessThanOrEqual(Date.parse(bound));
  });
});

describe('a live poll', () => {
  it('reads every event that arrived, however many, in pages, and stops at those it holds', async () => {
    const old = Array.from({ length: 300 }, (_, i) => event(i, at(-i)));
    const held = old.slice(0, PAGE);
    // 650 arrive, newest first; runs of one millisecond across the pages' ends.
    const arrived = Array.from({ length: 650 }, (_, i) => event(1_000 + i, at(1_000 - Math.floor(i / 7))));
    const { query, requests } = server([...old, ...arrived]);
    const after = at(-300_000);
    const fresh = await fetchNewer((request) => query({ after, ...request }), held);
    expect(new Set(uuids(fresh))).toEqual(new Set(uuids(arrived)));
    expect(fresh).toHaveLength(650);
    expect(requests.length).toBeLessThanOrEqual(5);
    expect(requests.every((r) => r.after === after)).toBe(true);
    const shown = mergeEvents(held, fresh);
    expect(uuids(shown.slice(0, 650)).sort()).toEqual(uuids(arrived).sort());
  });

  it('asks once when nothing or less than a page arrived', async () => {
    const held = Array.from({ length: 250 }, (_, i) => event(i, at(-i)));
    const first = server(held);
    expect(await fetchNewer((request) => first.query(request), held.slice(0, PAGE))).toEqual([]);
    expect(first.requests).toHaveLength(1);
    const arrived = Array.from({ length: 20 }, (_, i) => event(1_000 + i, at(10)));
    const second = server([...held, ...arrived]);
    expect(new Set(uuids(await fetchNewer((request) => second.query(request), held.slice(0, PAGE))))).toEqual(new Set(uuids(arrived)));
    expect(second.requests).toHaveLength(1);
  });

  it('stops at MAX_ROWS new events, which are the newest', async () => {
    const arrived = Array.from({ length: MAX_ROWS + 700 }, (_, i) => event(i, at(100_000 - i)));
    const { query } = server(arrived);
    const fresh = await fetchNewer((request) => query(request), []);
    expect(fresh.length).toBeGreaterThanOrEqual(MAX_ROWS);
    expect(uuids(mergeEvents([], fresh))).toEqual(uuids(arrived.slice(0, MAX_ROWS)));
  });
});

describe('mergeEvents', () => {
  it('adds events once, newest first, microseconds after their millisecond', () => {
    const a = event(1, at(5));
    const b = event(2, at(5, 400));
    const c = event(3, at(4));
    const merged = mergeEvents([a], [c, b, a, b]);
    expect(uuids(merged)).toEqual([b.uuid, a.uuid, c.uuid]);
    expect(mergeEvents(merged, [a, c])).toBe(merged);
  });
});
