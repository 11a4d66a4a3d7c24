import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_PAGE_BYTES } from '../../src/http/pagination.js';
import { useTestServer } from '../helpers/server.js';

/**
 * The events list read through its `next` links returns every event exactly once: events that
 * share a timestamp across a page's end, pages cut short by their size, and events arriving from
 * many clients at once without timestamps of their own.
 */
const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

/** Every page from `first` on, following `next`. */
async function readAll(first: string): Promise<{ uuids: string[]; pages: number; sizes: number[] }> {
  const uuids: string[] = [];
  const sizes: number[] = [];
  let path: string | null = first;
  while (path !== null) {
    const res: { status: number; body: any } = await server.request(path);
    expect(res.status).toBe(200);
    uuids.push(...res.body.results.map((e: any) => e.id));
    sizes.push(res.body.results.length);
    const next: string | null = res.body.next;
    path = next === null ? null : next.slice(server.url.length);
  }
  return { uuids, pages: sizes.length, sizes };
}

function expectEachOnce(read: string[], sent: string[]): void {
  expect(new Set(read).size).toBe(read.length);
  expect([...read].sort()).toEqual([...sent].sort());
}

describe('the events list, page after page', () => {
  it('returns 1,200 events that share one timestamp each exactly once', async () => {
    const timestamp = '2026-02-03T04:05:06.789Z';
    const sent = Array.from({ length: 1200 }, () => randomUUID());
    for (let i = 0; i < sent.length; i += 400) {
      await server.ingest(sent.slice(i, i + 400).map((uuid) => ({ event: 'same instant', distinct_id: 'paging-1', uuid, timestamp })));
    }
    const read = await readAll(`${env()}/events/?event=same%20instant`);
    expect(read.pages).toBeGreaterThan(10);
    expectEachOnce(read.uuids, sent);
  });

  it('returns 5,000 events sent by concurrent clients without timestamps each exactly once', async () => {
    const clients = 10;
    const perClient = 500;
    const sent: string[][] = Array.from({ length: clients }, () => Array.from({ length: perClient }, () => randomUUID()));
    await Promise.all(
      sent.map(async (uuids, client) => {
        for (let i = 0; i < uuids.length; i += 50) {
          const batch = uuids.slice(i, i + 50).map((uuid) => ({ event: 'no timestamp', distinct_id: `client-${client}`, uuid }));
          const res = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: server.token, batch } });
          expect(res.status).toBe(200);
        }
      }),
    );
    await server.settle();
    const read = await readAll(`${env()}/events/?event=no%20timestamp&limit=300`);
    expectEachOnce(read.uuids, sent.flat());
  });

  it('cuts a page of large events short by its size, and goes on from there', async () => {
    // 24 events of ~600 KB: a page of all of them would be ~14 MB.
    const blob = 'p'.repeat(600_000);
    const sent = Array.from({ length: 24 }, () => randomUUID());
    for (let i = 0; i < sent.length; i += 4) {
      await server.ingest(sent.slice(i, i + 4).map((uuid) => ({ event: 'large', distinct_id: 'paging-3', uuid, properties: { blob } })));
    }
    const read = await readAll(`${env()}/events/?event=large&limit=100`);
    expectEachOnce(read.uuids, sent);
    expect(read.pages).toBeGreaterThan(1);
    // No page holds more than the bound's worth of these events (plus the one that crossed it).
    expect(Math.max(...read.sizes)).toBeLessThanOrEqual(Math.ceil(MAX_PAGE_BYTES / 600_000) + 1);
  });

  it('does not carry an offset into next: the cursor is the position', async () => {
    const first = await server.request(`${env()}/events/?event=same%20instant&limit=100&offset=100`);
    expect(first.status).toBe(200);
    const next = new URL(first.body.next);
    expect(next.searchParams.get('offset')).toBeNull();
    expect(next.searchParams.get('before_uuid')).toBe(first.body.results[99].id);
    // PostHog's own shape stays: `before` is the last event's timestamp as the event shows it.
    expect(next.searchParams.get('before')).toBe(first.body.results[99].timestamp);
  });
});

describe('an event over 1 MB', () => {
  it('is dropped with PostHog warning while the rest of its batch is stored', async () => {
    const [small, huge, after] = [randomUUID(), randomUUID(), randomUUID()];
    await server.ingest([
      { event: 'neighbour', distinct_id: 'size-1', uuid: small },
      { event: 'too large', distinct_id: 'size-1', uuid: huge, properties: { blob: 'z'.repeat(2 * 1024 * 1024) } },
      { event: 'neighbour', distinct_id: 'size-1', uuid: after },
    ]);
    const stored = await server.request(`${env()}/events/?distinct_id=size-1`);
    expect(stored.body.results.map((e: any) => e.id).sort()).toEqual([small, after].sort());
    const warnings = await server.request(`${env()}/ingestion_warnings/`);
    const tooLarge = warnings.body.results.find((w: any) => w.type === 'message_size_too_large');
    expect(tooLarge).toBeDefined();
    expect(tooLarge.warnings[0].details).toEqual({ eventUuid: huge, distinctId: 'size-1' });
  });
});
