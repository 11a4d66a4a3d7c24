import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROCESSING_ATTEMPTS } from '../../../src/ingestion/worker/worker.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * A queued event that cannot be stored at all (not even without person processing) must not
 * stall the queue behind it, and must not be thrown away either: after a few attempts it stays
 * parked in the queue table with a warning saying why, and everything after it is processed.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const UNREADABLE = '{"event": "truncated in the queue", "distinct_id": ';

describe('an event no processing can store', () => {
  it('is parked after its attempts while the events behind it are processed', async () => {
    const team = server.bootstrap.team;
    const { db } = server.running.ctx.database;
    // Capture never queues this; a damaged row or a bug could, and it must not stop ingestion.
    await db
      .insertInto('ingestion_queue')
      .values({ team_id: team.id, lane: 'realtime', distinct_id: 'poison', payload: UNREADABLE, received_at: new Date().toISOString() })
      .execute();
    for (const distinctId of ['healthy-1', 'healthy-2']) {
      const res = await fetch(`${server.url}/capture/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: team.apiToken, event: 'after the poison', distinct_id: distinctId }),
      });
      expect(res.status).toBe(200);
    }
    await server.settle();

    const events = await server.request(`/api/environments/${team.id}/events/?event=after%20the%20poison`);
    expect(events.body.results.map((e: { distinct_id: string }) => e.distinct_id).sort()).toEqual(['healthy-1', 'healthy-2']);

    const left = await db.selectFrom('ingestion_queue').select(['distinct_id', 'payload', 'attempts']).execute();
    expect(left).toEqual([{ distinct_id: 'poison', payload: UNREADABLE, attempts: MAX_PROCESSING_ATTEMPTS }]);

    const warnings = await server.request(`/api/environments/${team.id}/ingestion_warnings/`);
    const failed = warnings.body.results.find((w: { type: string }) => w.type === 'event_processing_failed');
    expect(failed.count).toBe(1);
    expect(failed.warnings[0].details).toMatchObject({ parked: true, error: expect.stringContaining('JSON') });
  });

  it('stays parked: later rounds of the worker neither retry it nor warn again', async () => {
    const team = server.bootstrap.team;
    const res = await fetch(`${server.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: team.apiToken, event: 'later', distinct_id: 'healthy-3' }),
    });
    expect(res.status).toBe(200);
    await server.settle();
    const { db } = server.running.ctx.database;
    const left = await db.selectFrom('ingestion_queue').select(['attempts']).execute();
    expect(left).toEqual([{ attempts: MAX_PROCESSING_ATTEMPTS }]);
    const warnings = await server.request(`/api/environments/${team.id}/ingestion_warnings/`);
    expect(warnings.body.results.find((w: { type: string }) => w.type === 'event_processing_failed').count).toBe(1);
  });
});
