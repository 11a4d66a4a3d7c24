import { useCallback, useEffect, useRef, useState } from 'react';
import { queryEvents, type EventsQueryInput } from '../../api/events';
import type { EventRow } from '../../api/types';
import { fetchNewer, mergeEvents, olderRequest, PAGE } from './event-pages';

export { MAX_ROWS, mergeEvents } from './event-pages';

/** How often a live view asks for new events. */
export const POLL_MS = 1500;
/**
 * How far before the newest event shown a poll looks: events are ordered by their own timestamp,
 * and one sent a little earlier can be stored after a later one (SDK batches, queue latency).
 */
const LOOKBACK_MS = 5 * 60_000;

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
  /** Counts first pages: an older page read for an earlier one is dropped (it would leave a gap). */
  const generationRef = useRef(0);
  /** An older page is being read (one at a time: the next starts where it ends). */
  const readingOlderRef = useRef(false);

  // The first page, again whenever the filters change.
  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    setEvents([]);
    setError(null);
    generationRef.current += 1;
    readingOlderRef.current = false;
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
        // Page by page while pages are full: more than a page can arrive between two polls.
        const newer = await fetchNewer(
          (request) => queryEvents(environmentId, { ...query, after, ...request }, abort.signal),
          eventsRef.current,
          query.before,
        );
        if (abort.signal.aborted) return;
        const known = new Set(eventsRef.current.map((e) => e.uuid));
        const fresh = newer.filter((e) => !known.has(e.uuid));
        setArrived(fresh.length);
        if (fresh.length > 0) setEvents((current) => mergeEvents(current, fresh));
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
    const held = eventsRef.current;
    const oldest = held.at(-1);
    if (!oldest || readingOlderRef.current) return;
    readingOlderRef.current = true;
    const generation = generationRef.current;
    // Up to the end of the oldest event's millisecond, not `before` it: events sharing its time
    // that did not fit in the page come next (those held come again, and are merged away).
    queryEvents(environmentId, { ...query, ...olderRequest(oldest, held, query.before) }).then(
      (page) => {
        if (generationRef.current !== generation) return;
        readingOlderRef.current = false;
        setEvents((current) => mergeEvents(current, page.events));
        setHasOlder(page.hasMore);
      },
      (err: unknown) => {
        if (generationRef.current !== generation) return;
        readingOlderRef.current = false;
        setError(err);
      },
    );
  }, [key]);

  return { events, loading, error, hasOlder, loadOlder, arrived };
}
