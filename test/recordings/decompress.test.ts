import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decompressEvent, playerLines } from '../../src/recordings/decompress.js';
import { loadWebRecording } from './fixtures/load.js';

const gz = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value), 'utf8')).toString('latin1');

describe('posthog-js compressed rrweb events', () => {
  it('inflates the full snapshot of the recorded fixture', () => {
    const events = loadWebRecording().requests.flatMap((body) => body.flatMap((e: any) => e.properties.$snapshot_data));
    const full = events.find((e: any) => e.type === 2)!;
    expect(typeof full.data).toBe('string');
    const plain = decompressEvent(full);
    expect(plain.cv).toBeUndefined();
    expect((plain.data as any).node.childNodes[1].tagName).toBe('html');
    // Text survives the latin1 round trip, non-ASCII included.
    expect(JSON.stringify(plain.data)).toContain('Buy – €12');
  });

  it('inflates mutation and style sheet fields, and leaves other events alone', () => {
    const mutation = {
      type: 3,
      cv: '2024-10',
      timestamp: 1,
      data: { source: 0, texts: gz([]), attributes: gz([{ id: 1 }]), removes: gz([]), adds: gz([{ parentId: 1 }]) },
    };
    expect(decompressEvent(mutation)).toEqual({
      type: 3,
      timestamp: 1,
      data: { source: 0, texts: [], attributes: [{ id: 1 }], removes: [], adds: [{ parentId: 1 }] },
    });
    const sheet = { type: 3, cv: '2024-10', timestamp: 1, data: { source: 8, id: 4, adds: gz([{ rule: 'a{}' }]) } };
    expect(decompressEvent(sheet)).toEqual({ type: 3, timestamp: 1, data: { source: 8, id: 4, adds: [{ rule: 'a{}' }] } });
    const plain = { type: 3, timestamp: 1, data: { source: 2, type: 2 } };
    expect(decompressEvent(plain)).toBe(plain);
    const corrupt = { type: 2, cv: '2024-10', timestamp: 1, data: '\u001f\u008bnot gzip' };
    expect(decompressEvent(corrupt)).toBe(corrupt);
  });

  it('turns stored [windowId, event] lines into plain event lines, skipping broken ones', () => {
    const stored = Buffer.from(
      `["w",${JSON.stringify({ type: 2, cv: '2024-10', timestamp: 5, data: gz({ node: { id: 1 } }) })}]\nnot json\n["w",{"type":4,"timestamp":6,"data":{}}]\n`,
    );
    expect(
      playerLines(stored)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { type: 2, timestamp: 5, data: { node: { id: 1 } } },
      { type: 4, timestamp: 6, data: {} },
    ]);
  });
});
