import { beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '../../src/platform/db/values.js';
import { useTestServer } from '../helpers/server.js';

// /ingestion_warnings/ against PostHog's IngestionWarningsViewSet (posthog/api/ingestion_warnings.py).
const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;
const DAY = 86_400_000;

/** A fixed hour of the day `daysAgo` days back, so a day's warnings stay on one UTC date. */
function at(daysAgo: number, minute = 0): string {
  const base = new Date(Date.now() - daysAgo * DAY);
  base.setUTCHours(12, minute, 0, 0);
  return base.toISOString();
}
const day = (daysAgo: number) => at(daysAgo).slice(0, 10);

async function store(rows: { teamId?: number; type: string; details: Record<string, unknown>; timestamp: string }[]) {
  await server.running.ctx.database.db
    .insertInto('ingestion_warnings')
    .values(
      rows.map((r) => ({
        team_id: r.teamId ?? server.bootstrap.team.id,
        type: r.type,
        source: 'test',
        details: toJson(r.details),
        timestamp: r.timestamp,
      })),
    )
    .execute();
}

const merge = { sourcePerson: 'x-uuid', sourcePersonDistinctId: 'Alice' };
// 55 warnings over three days (2 days ago is the newest): more than the 50 examples PostHog sends.
const replay = Array.from({ length: 55 }, (_, i) => ({
  type: 'replay_timestamp_too_far',
  details: { n: i },
  timestamp: at(2 + (i % 3), i),
}));

beforeAll(async () => {
  await store([
    ...replay,
    { type: 'cannot_merge_already_identified', details: merge, timestamp: at(1) },
    { type: 'cannot_merge_already_identified', details: {}, timestamp: at(3) },
    { type: 'another_type', details: {}, timestamp: at(5) },
    { type: 'too_old', details: {}, timestamp: at(40) },
    { teamId: 987_654, type: 'another_team', details: {}, timestamp: at(1) },
  ]);
});

const list = async (query = '') => {
  const res = await server.request(`${env()}/ingestion_warnings/${query}`);
  expect(res.status).toBe(200);
  return res.body.results as any[];
};

describe('ingestion warnings summary', () => {
  it('summarises each type with a per-day sparkline, in PostHog key order', async () => {
    const results = await list();
    // Three summaries (not another team's, nothing older than 30 days), keys in PostHog's order.
    expect(results.map((r) => Object.keys(r))).toEqual(Array(3).fill(['type', 'lastSeen', 'sparkline', 'warnings', 'count']));
    expect(results[0]).toEqual({
      type: 'cannot_merge_already_identified',
      lastSeen: at(1),
      sparkline: [
        [1, day(1)],
        [1, day(3)],
      ],
      warnings: [
        { type: 'cannot_merge_already_identified', timestamp: at(1), details: merge },
        { type: 'cannot_merge_already_identified', timestamp: at(3), details: {} },
      ],
      count: 2,
    });
    const newestFirst = [...replay].sort((a, b) => b.timestamp.localeCompare(a.timestamp));
    expect(results[1]).toEqual({
      type: 'replay_timestamp_too_far',
      lastSeen: newestFirst[0]!.timestamp,
      sparkline: [
        [19, day(2)],
        [18, day(3)],
        [18, day(4)],
      ],
      warnings: newestFirst.slice(0, 50).map((w) => ({ type: w.type, timestamp: w.timestamp, details: w.details })),
      count: 55,
    });
    expect(results[2]).toMatchObject({ type: 'another_type', sparkline: [[1, day(5)]], count: 1 });
  });

  it('q matches the type or the details text, case-sensitively and literally', async () => {
    expect((await list('?q=another_type')).map((r) => r.type)).toEqual(['another_type']);
    expect(await list('?q=x-uuid')).toEqual([
      {
        type: 'cannot_merge_already_identified',
        lastSeen: at(1),
        sparkline: [[1, day(1)]],
        warnings: [{ type: 'cannot_merge_already_identified', timestamp: at(1), details: merge }],
        count: 1,
      },
    ]);
    expect(await list('?q=X-UUID')).toEqual([]);
    expect(await list('?q=%25')).toEqual([]);
    expect(await list('?q=too_old')).toEqual([]); // only outside the 30 days
    // A repeated q counts by its last value, as Django's QueryDict.get.
    expect((await list('?q=x-uuid&q=another')).map((r) => r.type)).toEqual(['another_type']);
  });
});
