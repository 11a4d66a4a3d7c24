import { useCallback, useEffect, useRef, useState } from 'react';
import { queryEvents, type EventsQueryInput } from '../../api/events';
import type { EventRow } from '../../api/types';

/** How often a live view asks for new events. */
export const POLL_MS = 1500;
/** The most events kept (and scrolled through); older ones fall off the end. */
export const MAX_ROWS = 2000;
/** Events asked for per request. */
const PAGE = 200;
/**
 * How far before the newest event shown a poll looks: events are ordered by their own timestamp,
 * and one sent a little earlier can be stored after a later one (SDK batches, queue latency).
 */
const LOOKBACK_MS = 5 * 60_000;

function newestFirst(a: EventRow, b: EventRow): number {
  return a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0;
}

/** Adds `incoming` to `current` without duplicates, newest first, at most MAX_ROWS. */
export function mergeEvents(current: EventRow[], incoming: EventRow[]): EventRow[] {
  const known = new Set(current.map((e) => e.uuid));
  const fresh = incoming.filter((e) => !known.has(e.uuid));
  if (fresh.length === 0) return current;
  return [...fresh, ...current].sort(newestFirst).slice(0, MAX_ROWS);
}

function laterOf(a: string | null | undefined, iso: string): string {
  if (!a || a === 'all') return iso;
  // A relative bound (`-24h`) is at least this old for any event we could have seen.
  if (a.startsWith('-')) return iso;
  return a > iso ? a : iso;
}

export interface LiveEvents {
  events: EventRow[];
  loading: boolean;
  error: unknown;
  /** More older events exist than are loaded. */
  hasOlder: boolean;
  loadOlder: () => void;
  /** Events that arrived in the last poll. */
  arrived: number;
}

/**
 * The environment's events for `query`, newest first; while `live`, new ones are added as they are
 * stored, in one update per poll however many arrive (a view of 1,000 events/s re-renders ~once a
 * second, not a thousand times).
 */
export function useLiveEvents(environmentId: number, query: EventsQueryInput, live: boolean): LiveEvents {
  const [events, setEvents] = useState<EventRow[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [hasOlder, setHasOlder] = useState(false);
  const [arrived, setArrived] = useState(0);
  const eventsRef = useRef<EventRow[]>([]);
  eventsRef.current = events;
  const key = JSON.stringify([environmentId, query]);

  // The first page, again whenever the filters change.
  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    setEvents([]);
    setError(null);
    queryEvents(environmentId, { ...query, limit: PAGE }, abort.signal).then(
      (page) => {
        setEvents(page.events);
        setHasOlder(page.hasMore);
        setLoading(false);
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => abort.abort();
    // `key` stands for the environment and the query's contents.
  }, [key]);

  // New events, while live and once the first page is in.
  useEffect(() => {
    if (!live || loading) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      const newest = eventsRef.current[0]?.timestamp;
      const after = newest ? laterOf(query.after, new Date(Date.parse(newest) - LOOKBACK_MS).toISOString()) : query.after;
      try {
        const page = await queryEvents(environmentId, { ...query, after, limit: PAGE }, abort.signal);
        if (abort.signal.aborted) return;
        const before = eventsRef.current;
        const known = new Set(before.map((e) => e.uuid));
        const fresh = page.events.filter((e) => !known.has(e.uuid));
        setArrived(fresh.length);
        if (fresh.length > 0) setEvents(mergeEvents(before, fresh));
        setError(null);
      } catch (err) {
        if (abort.signal.aborted) return;
        setError(err);
      }
      timer = setTimeout(() => void poll(), POLL_MS);
    };
    timer = setTimeout(() => void poll(), POLL_MS);
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [key, live, loading]);

  const loadOlder = useCallback(() => {
    const oldest = eventsRef.current.at(-1);
    if (!oldest) return;
    queryEvents(environmentId, { ...query, before: oldest.timestamp, limit: PAGE }).then(
      (page) => {
        setEvents((current) => mergeEvents(current, page.events));
        setHasOlder(page.hasMore);
      },
      (err: unknown) => setError(err),
    );
  }, [key]);

  return { events, loading, error, hasOlder, loadOlder, arrived };
}
