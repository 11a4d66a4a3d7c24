import { randomUUID } from 'node:crypto';
import type { TestServer } from '../helpers/server.js';

/** A `$snapshot` event as posthog-js 1.434 posts it to `/s/`. */
export function snapshotEvent(token: string, sessionId: string, events: unknown[], extra: { windowId?: string; distinctId?: string } = {}) {
  return {
    event: '$snapshot',
    properties: {
      $snapshot_bytes: JSON.stringify(events).length,
      $snapshot_data: events,
      $session_id: sessionId,
      $window_id: extra.windowId ?? `${sessionId}-w`,
      $lib: 'web',
      $lib_version: '1.434.18',
      token,
      distinct_id: extra.distinctId ?? 'user-1',
    },
    uuid: randomUUID(),
  };
}

export const newSessionId = () => randomUUID();

export async function postSnapshots(server: TestServer, body: string | Buffer, contentType = 'text/plain', query = '') {
  const res = await fetch(`${server.url}/s/${query}`, { method: 'POST', body, headers: { 'content-type': contentType } });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text };
}

export const meta = (t: number, href: string) => ({ type: 4, timestamp: t, data: { href, width: 1280, height: 800 } });
export const fullSnapshot = (t: number) => ({
  type: 2,
  timestamp: t,
  data: { node: { type: 0, id: 1, childNodes: [] }, initialOffset: { left: 0, top: 0 } },
});
export const click = (t: number) => ({ type: 3, timestamp: t, data: { source: 2, type: 2, id: 5, x: 1, y: 1 } });
export const input = (t: number) => ({ type: 3, timestamp: t, data: { source: 5, text: 'a', isChecked: false, id: 7 } });
export const consoleLine = (t: number, level: string) => ({
  type: 6,
  timestamp: t,
  data: { plugin: 'rrweb/console@1', payload: { level, payload: ['"hi"'], trace: [] } },
});
