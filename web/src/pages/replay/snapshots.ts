/**
 * The recording's stored lines turned into what rrweb-player plays, and the items listed beside it.
 *
 * posthog-js (`cv: "2024-10"`) gzips the bulky parts of some events and writes the bytes as a latin1
 * string; the API returns them as sent (PostHog's does too) and the player needs plain rrweb events,
 * as src/recordings/decompress.ts does for the shared page. The browser's DecompressionStream
 * inflates them, so no library is shipped for it.
 */

export interface RrwebEvent {
  type: number;
  timestamp: number;
  data: unknown;
  [key: string]: unknown;
}

const COMPRESSED_VERSION = '2024-10';
const FULL_SNAPSHOT = 2;
const INCREMENTAL = 3;
const PLUGIN = 6;
const SOURCE_MUTATION = 0;
const SOURCE_MOUSE_INTERACTION = 2;
const SOURCE_STYLE_SHEET_RULE = 8;
const MOUSE_CLICK = 2;
const CONSOLE_PLUGIN = 'rrweb/console@1';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

async function inflate(value: unknown): Promise<unknown> {
  if (typeof value !== 'string' || value.charCodeAt(0) !== 0x1f || value.charCodeAt(1) !== 0x8b) return value;
  const bytes = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) bytes[i] = value.charCodeAt(i) & 0xff;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text()) as unknown;
}

/** The event in plain rrweb form (events that were not compressed come back as they are). */
export async function decompressEvent(event: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (event.cv !== COMPRESSED_VERSION) return event;
  const { cv: _cv, ...rest } = event;
  try {
    if (event.type === FULL_SNAPSHOT) return { ...rest, data: await inflate(event.data) };
    if (event.type === INCREMENTAL && isObject(event.data)) {
      const data = { ...event.data };
      const fields =
        data.source === SOURCE_MUTATION
          ? ['texts', 'attributes', 'removes', 'adds']
          : data.source === SOURCE_STYLE_SHEET_RULE
            ? ['adds', 'removes']
            : [];
      for (const field of fields) if (field in data) data[field] = await inflate(data[field]);
      return { ...rest, data };
    }
  } catch {
    // A corrupt payload: the event as it came; the player skips what it cannot read.
    return event;
  }
  return rest;
}

/** Stored lines (`[windowId, event]`) → rrweb events in time order; unreadable lines are skipped. */
export async function toPlayerEvents(lines: string[]): Promise<RrwebEvent[]> {
  const events: RrwebEvent[] = [];
  for (const line of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const event = Array.isArray(parsed) ? parsed[1] : parsed;
    if (!isObject(event) || typeof event.type !== 'number' || typeof event.timestamp !== 'number') continue;
    events.push((await decompressEvent(event)) as RrwebEvent);
  }
  // Chunks from several windows interleave; the player needs one time-ordered stream.
  return events.sort((a, b) => a.timestamp - b.timestamp);
}

/** A line beside the player: where it is in the recording and what it says (plain text). */
export interface TimelineItem {
  key: string;
  timestamp: number;
  label: string;
  detail?: string;
  level?: string;
}

interface SerializedNode {
  id?: number;
  type?: number;
  tagName?: string;
  attributes?: Record<string, unknown>;
  textContent?: string;
  childNodes?: SerializedNode[];
}

/** Remembers a short description of each recorded element under its rrweb node id. */
function describeNodes(node: SerializedNode, names: Map<number, string>): void {
  if (node.type === 2 && typeof node.id === 'number' && typeof node.tagName === 'string') {
    const id = typeof node.attributes?.id === 'string' && node.attributes.id ? `#${node.attributes.id}` : '';
    const text = (node.childNodes ?? [])
      .filter((c) => c.type === 3 && typeof c.textContent === 'string')
      .map((c) => c.textContent!.trim())
      .join(' ')
      .slice(0, 60);
    names.set(node.id, `${node.tagName}${id}${text ? ` "${text}"` : ''}`);
  }
  for (const child of node.childNodes ?? []) describeNodes(child, names);
}

/**
 * The recording's clicks (rrweb mouse interactions of type click), each named by its element as
 * the page was at that moment: node ids start over with each full snapshot (a new page load).
 */
export function clickItems(events: RrwebEvent[]): TimelineItem[] {
  const names = new Map<number, string>();
  const items: TimelineItem[] = [];
  events.forEach((event, index) => {
    if (!isObject(event.data)) return;
    if (event.type === FULL_SNAPSHOT && isObject(event.data.node)) {
      names.clear();
      describeNodes(event.data.node as SerializedNode, names);
      return;
    }
    if (event.type !== INCREMENTAL) return;
    const { source, type, id } = event.data;
    if (source === SOURCE_MUTATION && Array.isArray(event.data.adds)) {
      for (const add of event.data.adds as unknown[])
        if (isObject(add) && isObject(add.node)) describeNodes(add.node as SerializedNode, names);
    }
    if (source !== SOURCE_MOUSE_INTERACTION || type !== MOUSE_CLICK) return;
    items.push({ key: `click-${index}`, timestamp: event.timestamp, label: (typeof id === 'number' && names.get(id)) || 'an element' });
  });
  return items;
}

/** Console lines the recording carries (rrweb's console plugin, which posthog-js uses). */
export function consoleItems(events: RrwebEvent[]): TimelineItem[] {
  const items: TimelineItem[] = [];
  events.forEach((event, index) => {
    if (event.type !== PLUGIN || !isObject(event.data) || event.data.plugin !== CONSOLE_PLUGIN) return;
    const payload = isObject(event.data.payload) ? event.data.payload : {};
    const parts = Array.isArray(payload.payload) ? payload.payload : [];
    // The plugin stringifies each argument (strings come JSON-quoted).
    const text = parts
      .map((part) => {
        if (typeof part !== 'string') return JSON.stringify(part);
        try {
          const value: unknown = JSON.parse(part);
          return typeof value === 'string' ? value : part;
        } catch {
          return part;
        }
      })
      .join(' ');
    items.push({
      key: `console-${index}`,
      timestamp: event.timestamp,
      label: text.slice(0, 500),
      level: typeof payload.level === 'string' ? payload.level : 'log',
    });
  });
  return items;
}
