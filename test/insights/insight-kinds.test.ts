/**
 * The insight kinds an insight may be saved with: each query is checked by its own reader, its
 * errors named under the InsightVizNode's `source`, its `result` what query/ answers; a kind
 * Hoglet does not compute is refused.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const insights = () => `/api/environments/${server.bootstrap.team.id}/insights/`;

const series = [{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }];
const KINDS: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
  ['TrendsQuery', { series }, { series, interval: 'year' }, 'query__source__interval'],
  ['FunnelsQuery', { series: [...series, ...series] }, { series }, 'query__source__series'],
  [
    'RetentionQuery',
    { retentionFilter: { period: 'Day' } },
    { retentionFilter: { period: 'Year' } },
    'query__source__retentionFilter__period',
  ],
  ['LifecycleQuery', { series }, { series: [...series, ...series] }, 'query__source__series'],
  ['StickinessQuery', { series }, { series, interval: 'year' }, 'query__source__interval'],
];

const save = (source: Record<string, unknown>) =>
  server.request(insights(), { method: 'POST', body: { name: String(source.kind), query: { kind: 'InsightVizNode', source } } });

describe('an insight', () => {
  it.each(KINDS)('is saved with a %s, and refused one it cannot run', async (kind, good, bad, attr) => {
    const saved = await save({ kind, ...good });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body.query.source.kind).toBe(kind);
    // Its result is what query/ answers for it.
    const answer = await server.request(`/api/environments/${server.bootstrap.team.id}/query/`, {
      method: 'POST',
      body: { query: { kind, ...good } },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(saved.body.result).toEqual(answer.body.results);
    const refused = await save({ kind, ...bad });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ type: 'validation_error', attr });
  });

  it('is refused a kind Hoglet does not compute, with the kinds it does', async () => {
    const res = await save({ kind: 'PathsQuery' });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe('query__source__kind');
    expect(res.body.detail).toContain('LifecycleQuery');
  });
});
