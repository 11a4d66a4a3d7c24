/**
 * The engine host's request bodies across versions: a guest sends an insert's rows after the
 * request only to a host whose address says it reads them (protocol 2); to an older host, and from
 * an older guest, the request is one JSON text, which this host still reads.
 */
import { describe, expect, it } from 'vitest';
import { parseRequest, requestBody, type HostRequest } from '../../src/platform/analytics/engine-host.js';

const insert: HostRequest = {
  op: 'insert',
  table: 'events',
  rows: ['{"s":"a line\\nand \\"quoted\\" ✓"}', '{"n":6}'].join('\n'),
  options: { deduplicationToken: 't-1' },
};

describe('engine host request bodies', () => {
  it('sends the rows as they are after the request to a host that reads them', () => {
    const body = requestBody(insert, 2);
    expect(body).toHaveLength(2);
    expect(body[1]).toBe(insert.rows);
    expect(parseRequest(body.join(''))).toEqual(insert);
  });

  it("sends an insert's pieces one after the other, a newline between, and the host reads them as one text", () => {
    const pieces = ['{"n":1}\n{"n":2}', '{"s":"\\n"}', '{"n":3}'];
    const body = requestBody({ ...insert, rows: pieces }, 2);
    expect(body.slice(1)).toEqual([pieces[0], '\n', pieces[1], '\n', pieces[2]]);
    expect(parseRequest(body.join(''))).toEqual({ ...insert, rows: pieces.join('\n') });
    // To an older host: the pieces joined inside the one JSON text.
    expect(JSON.parse(requestBody({ ...insert, rows: pieces }, undefined)[0]!)).toEqual({ ...insert, rows: pieces.join('\n') });
  });

  it('sends one JSON text to an older host (no protocol in its address)', () => {
    const body = requestBody(insert, undefined);
    expect(body).toHaveLength(1);
    expect(JSON.parse(body[0]!)).toEqual(insert);
  });

  it("reads an older guest's whole-JSON insert and every other operation", () => {
    expect(parseRequest(JSON.stringify(insert))).toEqual(insert);
    const query: HostRequest = { op: 'query', sql: 'SELECT {n:UInt8}', params: { n: 1 } };
    expect(requestBody(query, 2)).toEqual([JSON.stringify(query)]);
    expect(parseRequest(requestBody(query, 2).join(''))).toEqual(query);
  });

  it('refuses rows after a request that is not an insert', () => {
    expect(() => parseRequest(`${JSON.stringify({ op: 'query', sql: 'SELECT 1' })}\n{"n":1}`)).toThrow(/unexpected rows/);
  });
});
