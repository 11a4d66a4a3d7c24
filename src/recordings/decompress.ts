/**
 * posthog-js (`cv: "2024-10"`) gzips the bulky parts of some rrweb events before sending them and
 * writes the bytes as a latin1 string: the whole `data` of full snapshots, the `texts`, `attributes`,
 * `removes` and `adds` of mutations, and `adds`/`removes` of style sheet rules. Hoglet stores events
 * as sent (the snapshots API returns them unchanged, as PostHog's does); a player needs them back in
 * plain rrweb form, which is what this does.
 */
import { gunzipSync } from 'node:zlib';
import { isJsonObject } from '../lib/json-object.js';

const COMPRESSED_VERSION = '2024-10';

function inflate(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const bytes = Buffer.from(value, 'latin1');
  // Only gzip (1f 8b) is unwrapped; anything else was never compressed.
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return value;
  return JSON.parse(gunzipSync(bytes).toString('utf8'));
}

/** The event in plain rrweb form; events that were not compressed come back as they are. */
export function decompressEvent(event: Record<string, unknown>): Record<string, unknown> {
  if (event.cv !== COMPRESSED_VERSION) return event;
  const { cv: _cv, ...rest } = event;
  try {
    if (event.type === 2) return { ...rest, data: inflate(event.data) };
    if (event.type === 3 && isJsonObject(event.data)) {
      const data = { ...event.data };
      const fields = data.source === 0 ? ['texts', 'attributes', 'removes', 'adds'] : data.source === 8 ? ['adds', 'removes'] : [];
      for (const field of fields) if (field in data) data[field] = inflate(data[field]);
      return { ...rest, data };
    }
  } catch {
    // A corrupt payload: leave the event as it came, the player skips what it cannot read.
    return event;
  }
  return rest;
}

/**
 * Stored JSON lines (`[windowId, event]`) → JSON lines of plain rrweb events for a player. A line
 * that is not valid JSON is skipped rather than breaking the whole replay.
 */
export function playerLines(stored: Buffer): string {
  let out = '';
  for (const line of stored.toString('utf8').split('\n')) {
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const event = Array.isArray(parsed) ? parsed[1] : parsed;
    if (isJsonObject(event)) out += `${JSON.stringify(decompressEvent(event))}\n`;
  }
  return out;
}
