import { isJsonObject } from '../../lib/json-object.js';
/**
 * rrweb event vocabulary used by session replay (numeric values from rrweb-io/rrweb `packages/types`),
 * and the classifiers PostHog's recording ingestion applies to each event.
 *
 * Everything here is pure and tolerant of malformed input: rrweb events arrive straight from browsers,
 * so every accessor checks types instead of trusting the shape.
 */

/** `event.type` */
export const EventType = {
  DomContentLoaded: 0,
  Load: 1,
  FullSnapshot: 2,
  IncrementalSnapshot: 3,
  Meta: 4,
  Custom: 5,
  Plugin: 6,
} as const;

/** `event.data.source` of an IncrementalSnapshot event */
export const IncrementalSource = {
  Mutation: 0,
  MouseMove: 1,
  MouseInteraction: 2,
  Scroll: 3,
  ViewportResize: 4,
  Input: 5,
  TouchMove: 6,
  MediaInteraction: 7,
  StyleSheetRule: 8,
  CanvasMutation: 9,
  Font: 10,
  Log: 11,
  Drag: 12,
  StyleDeclaration: 13,
  Selection: 14,
  AdoptedStyleSheet: 15,
  CustomElement: 16,
} as const;

/** `event.data.type` of a MouseInteraction incremental event */
export const MouseInteraction = {
  MouseUp: 0,
  MouseDown: 1,
  Click: 2,
  ContextMenu: 3,
  DblClick: 4,
  Focus: 5,
  Blur: 6,
  TouchStart: 7,
  TouchMove_Departed: 8,
  TouchEnd: 9,
  TouchCancel: 10,
} as const;

/** Name of rrweb's console-record plugin, as found in `event.data.plugin`. */
export const CONSOLE_PLUGIN = 'rrweb/console@1';

/**
 * One rrweb event after validation: `type` and `timestamp` (epoch milliseconds, > 0) are guaranteed,
 * everything else is carried through untouched.
 */
export interface RRWebEvent {
  type: number;
  timestamp: number;
  data?: unknown;
  delay?: number;
  [key: string]: unknown;
}

/** The browser console levels rrweb's console plugin records. */
export type ConsoleCategory = 'log' | 'warn' | 'error';

const CLICK_INTERACTIONS: ReadonlySet<number> = new Set([
  MouseInteraction.Click,
  MouseInteraction.DblClick,
  MouseInteraction.TouchEnd,
  MouseInteraction.ContextMenu,
]);

const MOUSE_ACTIVITY_SOURCES: ReadonlySet<number> = new Set([
  IncrementalSource.MouseMove,
  IncrementalSource.MouseInteraction,
  IncrementalSource.TouchMove,
]);

/**
 * Sources that mark the user as active for the active/inactive time segmentation
 * (PostHog `segmentation.ts` `activeSources`): mouse move, mouse interaction, scroll, viewport resize,
 * input, touch move, media interaction and drag.
 */
export const ACTIVE_SOURCES: ReadonlySet<number> = new Set([
  IncrementalSource.MouseMove,
  IncrementalSource.MouseInteraction,
  IncrementalSource.Scroll,
  IncrementalSource.ViewportResize,
  IncrementalSource.Input,
  IncrementalSource.TouchMove,
  IncrementalSource.MediaInteraction,
  IncrementalSource.Drag,
]);

function dataOf(event: RRWebEvent): Record<string, unknown> | undefined {
  return isJsonObject(event.data) ? event.data : undefined;
}

/** `data.source` of an IncrementalSnapshot event, else undefined. */
export function incrementalSource(event: RRWebEvent): number | undefined {
  if (event.type !== EventType.IncrementalSnapshot) return undefined;
  const source = dataOf(event)?.['source'];
  return typeof source === 'number' ? source : undefined;
}

/** Click, double click, context menu (right click) or touch end. */
export function isClick(event: RRWebEvent): boolean {
  if (incrementalSource(event) !== IncrementalSource.MouseInteraction) return false;
  const kind = dataOf(event)?.['type'];
  return typeof kind === 'number' && CLICK_INTERACTIONS.has(kind);
}

/** Any Input incremental event ("keypress" in PostHog's vocabulary). */
export function isKeypress(event: RRWebEvent): boolean {
  return incrementalSource(event) === IncrementalSource.Input;
}

/** Mouse move, mouse interaction or touch move. */
export function isMouseActivity(event: RRWebEvent): boolean {
  const source = incrementalSource(event);
  return source !== undefined && MOUSE_ACTIVITY_SOURCES.has(source);
}

/** Whether the event counts as user activity for active-time segmentation. */
export function isActiveEvent(event: RRWebEvent): boolean {
  const source = incrementalSource(event);
  return source !== undefined && ACTIVE_SOURCES.has(source);
}

/**
 * The URL an event announces: `data.href` (Meta events) or `data.payload.href` (Custom events, e.g.
 * posthog-js's `$url_changed`), trimmed; like PostHog the event type itself is not checked.
 */
export function hrefFrom(event: RRWebEvent): string | undefined {
  const data = dataOf(event);
  if (!data) return undefined;
  const direct = data['href'];
  if (typeof direct === 'string' && direct.trim() !== '') return direct.trim();
  const payload = data['payload'];
  if (isJsonObject(payload)) {
    const nested = payload['href'];
    if (typeof nested === 'string' && nested.trim() !== '') return nested.trim();
  }
  return undefined;
}

/**
 * Console category of an rrweb console-plugin event, or undefined when the event is not one.
 *
 * PostHog maps the browser console level: `warn` and `countReset` are warnings; `error` and `assert` are
 * errors; every other level (log, info, debug, trace, dir, group, count, timeEnd, ... and unknown or
 * missing levels) counts as a log.
 */
export function consoleCategory(event: RRWebEvent): ConsoleCategory | undefined {
  if (event.type !== EventType.Plugin) return undefined;
  const data = dataOf(event);
  if (!data || data['plugin'] !== CONSOLE_PLUGIN) return undefined;
  const payload = data['payload'];
  const level = isJsonObject(payload) ? payload['level'] : undefined;
  switch (level) {
    case 'warn':
    case 'countReset':
      return 'warn';
    case 'error':
    case 'assert':
      return 'error';
    default:
      return 'log';
  }
}

/** The last epoch millisecond a date can hold (ECMAScript's time value range). */
const LATEST_TIME_MS = 8.64e15;

/** A usable rrweb timestamp: epoch milliseconds greater than zero that a date can hold. */
export function isValidTimestamp(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && value <= LATEST_TIME_MS;
}

/** Narrow an unknown value to an rrweb event (object with numeric `type` and a valid `timestamp`). */
export function asRRWebEvent(value: unknown): RRWebEvent | undefined {
  if (!isJsonObject(value)) return undefined;
  if (typeof value['type'] !== 'number' || !Number.isInteger(value['type'])) return undefined;
  if (!isValidTimestamp(value['timestamp'])) return undefined;
  return value as RRWebEvent;
}
