/**
 * How the Activity page pages through the events query without skipping or repeating an event.
 * (test/web/activity-pages.test.ts runs it against a stand-in for the query.)
 *
 * The query orders events newest first, by timestamp and then by uuid, and its `before` bound is
 * exclusive and read to the millisecond. Asking for events `before` the oldest one held would skip
 * those that share its time but did not fit in the page (many events of one SDK batch, or a
 * backfill, share a millisecond). So a page older than an event asks for everything up to the end
 * of that event's millisecond, with a limit larger by the number of events already held in that
 * millisecond: the answer repeats those (merged away by uuid) and holds up to a page of events not
 * held yet, however many share the millisecond, so each request makes progress.
 *
 * It imports nothing (events are anything with a uuid and a timestamp), so it runs under Node too.
 */

/** What paging reads of an event (the API's EventRow). */
export interface PagedEvent {
  uuid: string;
  /** ISO 8601 in UTC, to the millisecond unless microseconds were stored. */
  timestamp: string;
}

/** The most events kept (and scrolled through); older ones fall off the end. */
export const MAX_ROWS = 2000;
/** Events asked for per request. */
export const PAGE = 200;
/** The largest `limit` the events query takes. */
const MAX_LIMIT = 10_000;

/**
 * An event's time as text that sorts as the instant does. The API writes times to the millisecond
 * unless microseconds were stored (`…00.123Z`, `…00.123456Z`), and as text `Z` sorts after digits.
 */
export function timeKey(timestamp: string): string {
  const match = /^([^.]*?)(?:\.(\d+))?Z$/.exec(timestamp);
  if (!match) return timestamp;
  return `${match[1]}.${(match[2] ?? '').padEnd(6, '0').slice(0, 6)}Z`;
}

/** The millisecond an event's time falls in, as epoch milliseconds (NaN when unreadable). */
export function millisecondOf(timestamp: string): number {
  // Microseconds dropped here rather than left to Date.parse, which need not read them.
  return Date.parse(timestamp.replace(/(\.\d{3})\d+/, '$1'));
}

function newestFirst(a: PagedEvent, b: PagedEvent): number {
  const [ta, tb] = [timeKey(a.timestamp), timeKey(b.timestamp)];
  return ta < tb ? 1 : ta > tb ? -1 : a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0;
}

/** Adds `incoming` to `current` without duplicates, newest first, at most MAX_ROWS. */
export function mergeEvents<E extends PagedEvent>(current: E[], incoming: E[]): E[] {
  const known = new Set(current.map((e) => e.uuid));
  const fresh: E[] = [];
  for (const event of incoming) {
    if (known.has(event.uuid)) continue;
    known.add(event.uuid);
    fresh.push(event);
  }
  if (fresh.length === 0) return current;
  return [...fresh, ...current].sort(newestFirst).slice(0, MAX_ROWS);
}

/** A request for events older than some, within the filters' own `before`. */
export interface OlderRequest {
  before: string;
  limit: number;
}

/**
 * The request for the page after `oldest` (the oldest event of a run read newest first): up to the
 * end of its millisecond (never past `bound`, the filters' own `before`), and as many events more
 * than a page as `held` has in that millisecond, so the answer holds up to a page not held yet.
 */
export function olderRequest(oldest: PagedEvent, held: Iterable<PagedEvent>, bound?: string | null): OlderRequest {
  const ms = millisecondOf(oldest.timestamp);
  if (Number.isNaN(ms)) return { before: oldest.timestamp, limit: PAGE };
  let end = ms + 1;
  const boundMs = bound ? Date.parse(bound) : NaN;
  if (!Number.isNaN(boundMs) && boundMs < end) end = boundMs;
  const same = new Set<string>();
  for (const event of held) if (millisecondOf(event.timestamp) === ms) same.add(event.uuid);
  return { before: new Date(end).toISOString(), limit: Math.min(PAGE + same.size, MAX_LIMIT) };
}

export interface EventsPage<E extends PagedEvent> {
  events: E[];
  hasMore: boolean;
}

/**
 * The events newer than those `held` (newest first) that a live poll's query finds: its first page,
 * then, while pages are full, the pages after it, until one reaches an event already held (all
 * newer ones are then in hand), the query has no more, or MAX_ROWS new events are in hand (more
 * would fall off the list). So however many events arrive between two polls, none is left out.
 * `fetchPage` runs the poll's query with the `limit` and `before` given (the first request gives
 * no `before`: the filters' own applies; `bound` is that, which later requests keep within).
 */
export async function fetchNewer<E extends PagedEvent>(
  fetchPage: (request: { before?: string; limit: number }) => Promise<EventsPage<E>>,
  held: E[],
  bound?: string | null,
): Promise<E[]> {
  const known = new Set(held.map((e) => e.uuid));
  const fresh: E[] = [];
  const freshIds = new Set<string>();
  let page = await fetchPage({ limit: PAGE });
  for (;;) {
    let reached = false;
    for (const event of page.events) {
      if (known.has(event.uuid)) reached = true;
      else if (!freshIds.has(event.uuid)) {
        freshIds.add(event.uuid);
        fresh.push(event);
      }
    }
    // The server's order: the page's last event is its oldest.
    const oldest = page.events.at(-1);
    if (reached || !page.hasMore || !oldest || fresh.length >= MAX_ROWS) return fresh;
    page = await fetchPage(olderRequest(oldest, [...held, ...fresh], bound));
  }
}
