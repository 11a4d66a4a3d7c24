import { describe, expect, it } from 'vitest';
import { MAX_LIMIT, MAX_PAGE_BYTES } from '../../src/http/pagination.js';
import { useTestServer } from '../helpers/server.js';

/**
 * Offset-paged lists (persons here; every list answers through the same paginate) bound what one
 * answer holds: a page of large rows ends early and `next` goes on after its last row; a limit
 * above MAX_LIMIT reads MAX_LIMIT rows.
 */
const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

describe('a page of large persons', () => {
  it('ends before MAX_PAGE_BYTES, and next reads on from its last person', async () => {
    const blob = 'q'.repeat(900_000);
    const ids = Array.from({ length: 14 }, (_, i) => `large-person-${i}`);
    for (const id of ids) await server.ingest([{ event: '$identify', distinct_id: id, properties: { $set: { blob, name: id } } }]);
    const seen: string[] = [];
    const sizes: number[] = [];
    let path: string | null = `${env()}/persons/?limit=100`;
    while (path !== null) {
      const res: { status: number; body: any } = await server.request(path);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(ids.length);
      seen.push(...res.body.results.map((p: any) => p.properties.name));
      sizes.push(res.body.results.length);
      path = res.body.next === null ? null : new URL(res.body.next).pathname + new URL(res.body.next).search;
    }
    expect(seen.sort()).toEqual([...ids].sort());
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(Math.ceil(MAX_PAGE_BYTES / 900_000) + 1);
  });

  it(`reads at most ${MAX_LIMIT} rows, whatever limit asks`, async () => {
    const res = await server.request(`${env()}/persons/?limit=${MAX_LIMIT * 10}&offset=1`);
    expect(res.status).toBe(200);
    expect(res.body.previous).toContain(`limit=${MAX_LIMIT}`);
  });
});
