/**
 * A trends answer is bounded before it is computed: series × breakdown values × periods × buckets
 * at most MAX_TRENDS_VALUES. The query endpoint refuses a larger one with a 400 naming its parts;
 * a saved insight whose answer has grown past it shows no result instead of failing its list.
 */
import { describe, expect, it } from 'vitest';
import { readTrendsQuery, TrendsQueryError } from '../../src/insights/trends.js';
import { checkTrendsAnswerSize, MAX_TRENDS_VALUES } from '../../src/insights/trends-results.js';
import { DEFAULT_BREAKDOWN_LIMIT } from '../../src/insights/query-fields.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const series = (count: number) => Array.from({ length: count }, (_, i) => ({ kind: 'EventsNode', event: `event ${i}` }));
const trends = (count: number, extra: Record<string, unknown> = {}) => ({ kind: 'TrendsQuery', series: series(count), ...extra });
const BREAKDOWN = { breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } };
const COMPARE = { compareFilter: { compare: true } };

describe('checkTrendsAnswerSize', () => {
  it('takes an answer of exactly MAX_TRENDS_VALUES values and refuses one more bucket', () => {
    const perSeries = (DEFAULT_BREAKDOWN_LIMIT + 1) * 2;
    const buckets = 1000;
    const count = Math.floor(MAX_TRENDS_VALUES / (perSeries * buckets));
    const query = readTrendsQuery(trends(count, { ...BREAKDOWN, ...COMPARE }));
    const bound = Math.floor(MAX_TRENDS_VALUES / (count * perSeries));
    expect(() => checkTrendsAnswerSize(query, bound)).not.toThrow();
    expect(() => checkTrendsAnswerSize(query, bound + 1)).toThrow(TrendsQueryError);
  });

  it('counts breakdown values and periods only where the query has them', () => {
    const buckets = 5000;
    const plain = readTrendsQuery(trends(MAX_TRENDS_VALUES / buckets));
    expect(() => checkTrendsAnswerSize(plain, buckets)).not.toThrow();
    const broken = readTrendsQuery(trends(MAX_TRENDS_VALUES / buckets, BREAKDOWN));
    expect(() => checkTrendsAnswerSize(broken, buckets)).toThrow(
      `This query could answer 26,000,000 values (200 series × ${DEFAULT_BREAKDOWN_LIMIT + 1} breakdown values × 5000 intervals)`,
    );
    const wide = readTrendsQuery(trends(1, { breakdownFilter: { breakdown: '$browser', breakdown_limit: 999 } }));
    expect(() => checkTrendsAnswerSize(wide, 1000)).not.toThrow();
    expect(() => checkTrendsAnswerSize(wide, 1001)).toThrow('(1 series × 1000 breakdown values × 1001 intervals)');
    const compared = readTrendsQuery(trends(MAX_TRENDS_VALUES / buckets, COMPARE));
    expect(() => checkTrendsAnswerSize(compared, buckets)).toThrow('(200 series × 2 periods × 5000 intervals)');
  });
});

describe('the bound through the API', () => {
  it('answers 400 on /query/ for an answer past the bound, and computes one within it', async () => {
    const large = trends(200, { ...BREAKDOWN, dateRange: { date_from: '-3000d' } });
    const refused = await server.request(`${env()}/query/`, { method: 'POST', body: { query: large } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: 'query__series' });
    expect(refused.body.detail).toContain('200 series × 26 breakdown values × 3001 intervals');

    const within = await server.request(`${env()}/query/`, { method: 'POST', body: { query: trends(20, COMPARE) } });
    expect(within.status, within.text).toBe(200);
    expect(within.body.results).toHaveLength(40);
  });

  it('lists a saved insight past the bound with no result, beside one that computes', async () => {
    const large = await server.request(`${env()}/insights/`, {
      method: 'POST',
      body: { name: 'Too large', query: { kind: 'InsightVizNode', source: trends(400, { dateRange: { date_from: '-3000d' } }) } },
    });
    expect(large.status, large.text).toBe(201);
    expect(large.body.result).toBeNull();
    const small = await server.request(`${env()}/insights/`, {
      method: 'POST',
      body: { name: 'Fine', query: { kind: 'InsightVizNode', source: trends(1) } },
    });
    expect(small.status).toBe(201);
    const list = await server.request(`${env()}/insights/`);
    expect(list.status).toBe(200);
    const byName = new Map(list.body.results.map((insight: any) => [insight.name, insight.result]));
    expect(byName.get('Too large')).toBeNull();
    expect(Array.isArray(byName.get('Fine'))).toBe(true);
  });
});
