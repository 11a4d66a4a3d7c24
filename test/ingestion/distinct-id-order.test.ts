/**
 * A person's distinct ids keep the order they were given in: the first is the one PostHog acts as
 * (property updates from the app, a split's default). A merge that creates the person gives it the
 * identified id first, whatever the ids' alphabetical order.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

describe("a person's distinct id order", () => {
  it('puts the identified id first when $identify creates the person, though the anonymous id sorts first', async () => {
    await server.ingest([
      {
        event: '$identify',
        distinct_id: 'zz-user@example.com',
        timestamp: '2025-11-19T10:05:00Z',
        properties: { $anon_distinct_id: '00-anonymous', $set: { plan: 'pro' } },
      },
    ]);
    const res = await server.request(`${env()}/persons/?distinct_id=zz-user%40example.com`);
    expect(res.status).toBe(200);
    expect(res.body.results[0].distinct_ids).toEqual(['zz-user@example.com', '00-anonymous']);
  });
});
