/**
 * "All time" starts at an environment's first event (resolvedFrom, service.ts): the lookup, shared
 * by concurrent requests and kept a short while per process.
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { earliestEvent } from './trends-store.js';

/**
 * How long an environment's first event is reused: a web analytics page asks for it with each of
 * its 17 requests (docs/benchmarks.md, issue 30). Each process keeps its own, so an import of
 * older events shows in every process within this time.
 */
const FIRST_EVENT_REUSED_MS = 60_000;
/** Environments whose first event a process keeps at most. */
const FIRST_EVENTS_KEPT = 1000;

interface FirstEventLookup {
  startedAt: number;
  answer: Promise<Date | null>;
}

/** By engine (tests run several servers in one process), then environment; oldest first. */
const firstEvents = new WeakMap<AnalyticsEngine, Map<number, FirstEventLookup>>();

/**
 * The environment's first event (earliestEvent), one lookup for concurrent callers, reused for
 * FIRST_EVENT_REUSED_MS. An environment without events is not kept: its first events show at once.
 */
export function firstEvent(analytics: AnalyticsEngine, teamId: number): Promise<Date | null> {
  let lookups = firstEvents.get(analytics);
  if (!lookups) firstEvents.set(analytics, (lookups = new Map()));
  const now = Date.now();
  const kept = lookups.get(teamId);
  if (kept && now - kept.startedAt < FIRST_EVENT_REUSED_MS) return kept.answer;
  lookups.delete(teamId);
  for (const [id, lookup] of lookups) {
    if (lookups.size < FIRST_EVENTS_KEPT && now - lookup.startedAt < FIRST_EVENT_REUSED_MS) break;
    lookups.delete(id);
  }
  const lookup: FirstEventLookup = { startedAt: now, answer: earliestEvent(analytics, teamId) };
  lookups.set(teamId, lookup);
  const forget = () => {
    if (lookups.get(teamId) === lookup) lookups.delete(teamId);
  };
  lookup.answer.then((first) => {
    if (first === null) forget();
  }, forget);
  return lookup.answer;
}
