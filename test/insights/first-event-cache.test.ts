/**
 * "All time" looks the environment's first event up once for many requests (a web analytics page
 * sends 17 at once): concurrent callers share one lookup and a later one reuses it; another
 * environment has its own, and one without events is not kept, so its first events show at once.
 */
import { describe, expect, it } from 'vitest';
import { eventRow } from '../../src/events/outbox-rows.js';
import { resolvedFrom } from '../../src/insights/query-window.js';
import type { AnalyticsEngine } from '../../src/platform/analytics/engine.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ INGESTION_WORKER: 'off' });

/** The server's engine, its queries counted. */
function counting(engine: AnalyticsEngine) {
  const queries: string[] = [];
  const wrapped: AnalyticsEngine = Object.create(engine) as AnalyticsEngine;
  wrapped.query = async <T>(sql: string, params?: Parameters<AnalyticsEngine['query']>[1]) => {
    queries.push(sql);
    return engine.query<T>(sql, params);
  };
  return { engine: wrapped, queries };
}

let n = 0;
/** An event of the environment at `at`, straight into ClickHouse's `events`. */
async function storeEvent(engine: AnalyticsEngine, teamId: number, at: string): Promise<void> {
  n++;
  const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  await engine.insert(
    'events',
    eventRow(teamId, uuid, 'seen', 'someone', '00000000-0000-4000-8000-00000000ffff', '{}', at, at, null, null),
  );
}

describe('the first event of "all time"', () => {
  it('is looked up once for concurrent requests of an environment, and reused', async () => {
    const { engine, queries } = counting(server.running.ctx.analytics);
    const teamId = server.bootstrap.team.id;
    // Environments of nothing but their events in ClickHouse, out of any other test's way.
    const other = teamId + 1_000_000;
    await storeEvent(engine, teamId, '2026-03-01T10:00:00.000Z');
    await storeEvent(engine, teamId, '2026-03-05T10:00:00.000Z');
    await storeEvent(engine, other, '2026-02-01T08:00:00.000Z');
    const now = new Date();
    const answers = await Promise.all(Array.from({ length: 17 }, () => resolvedFrom(engine, teamId, 'all', now)));
    expect(new Set(answers)).toEqual(new Set(['2026-03-01T10:00:00.000Z']));
    expect(queries).toHaveLength(1);
    expect(await resolvedFrom(engine, other, 'all', now)).toBe('2026-02-01T08:00:00.000Z');
    expect(queries).toHaveLength(2);
    expect(await resolvedFrom(engine, teamId, 'all', now)).toBe('2026-03-01T10:00:00.000Z');
    expect(await resolvedFrom(engine, teamId, '-7d', now)).toBe('-7d');
    expect(queries).toHaveLength(2);
  });

  it('is not kept for an environment without events', async () => {
    const { engine, queries } = counting(server.running.ctx.analytics);
    const empty = server.bootstrap.team.id + 2_000_000;
    const now = new Date();
    expect(await resolvedFrom(engine, empty, 'all', now)).toBe(now.toISOString());
    await storeEvent(engine, empty, '2026-01-15T12:00:00.000Z');
    expect(await resolvedFrom(engine, empty, 'all', now)).toBe('2026-01-15T12:00:00.000Z');
    expect(queries).toHaveLength(2);
  });
});
