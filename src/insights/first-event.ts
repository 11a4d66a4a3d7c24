/**
 * "All time" starts at an environment's first event (resolvedFrom, service.ts): the lookup, shared
 * by concurrent requests and kept a short while per process.
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { SharedLookups } from '../lib/shared-lookups.js';
import { earliestEvent } from './trends-store.js';

/**
 * How long an environment's first event is reused: a web analytics page asks for it with each of
 * its 17 requests (docs/benchmarks.md, issue 30). Each process keeps its own, so an import of
 * older events shows in every process within this time.
 */
const FIRST_EVENT_REUSED_MS = 60_000;
/** Environments whose first event a process keeps at most. */
const FIRST_EVENTS_KEPT = 1000;

/** By engine (tests run several servers in one process), then environment. */
const firstEvents = new WeakMap<AnalyticsEngine, SharedLookups<number, Date | null>>();

/**
 * The environment's first event (earliestEvent), one lookup for concurrent callers, reused for
 * FIRST_EVENT_REUSED_MS. An environment without events is not kept: its first events show at once.
 */
export function firstEvent(analytics: AnalyticsEngine, teamId: number): Promise<Date | null> {
  let lookups = firstEvents.get(analytics);
  if (!lookups) {
    lookups = new SharedLookups({ lifetimeMs: FIRST_EVENT_REUSED_MS, maxKeys: FIRST_EVENTS_KEPT, keep: (first) => first !== null });
    firstEvents.set(analytics, lookups);
  }
  return lookups.get(teamId, () => earliestEvent(analytics, teamId));
}
