import { rawRequest } from '../helpers/raw-request.js';
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

describe('a page asked for with a Host header no URL can hold', () => {
  /** GET `path` with `host` as the Host header as sent (fetch sets its own). */
  async function getWithHost(path: string, host: string): Promise<{ status: number; body: any }> {
    const answer = await rawRequest(`${server.url}${path}`, {
      headers: { host, authorization: `Bearer ${server.bootstrap.personalApiKey}` },
    });
    return { status: answer.status, body: JSON.parse(answer.text) };
  }

  it("answers 400 in the envelope, as Django's DisallowedHost, and pages with a valid one", async () => {
    for (const host of ['a b', '<script>', 'ex\\ample.com']) {
      const res = await getWithHost(`${env()}/persons/`, host);
      expect(res.status, host).toBe(400);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'invalid_host',
        detail: `Invalid HTTP_HOST header: '${host.replace(/\\/g, '\\\\')}'.`,
        attr: null,
      });
    }
    for (const id of ['host-a', 'host-b']) await server.ingest([{ event: '$identify', distinct_id: id }]);
    for (const host of ['hoglet.example:8000', '[::1]:9', 'localhost']) {
      const res = await getWithHost(`${env()}/persons/?limit=1`, host);
      expect(res.status, host).toBe(200);
      expect(new URL(res.body.next).host).toBe(host);
    }
  });
});
