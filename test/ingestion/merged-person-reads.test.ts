/**
 * Events belong to the person their distinct id belongs to now, as in PostHog: events sent
 * anonymously before a sign-up (with a person, or personless as posthog-js's `identified_only`
 * sends them) show the identified person, are found by its `person_id`, match its person
 * properties, and count once in unique users. The events API shows that person when asked
 * (`include_person`), as PostHog does: one distinct id and only email, name and username.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { clockPast } from '../helpers/wait.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

async function personOf(distinctId: string) {
  const res = await server.request(`${env()}/persons/?distinct_id=${encodeURIComponent(distinctId)}`);
  return res.body.results[0];
}

async function uniqueUsers(event: string, day: string): Promise<number[]> {
  const query = {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event, math: 'dau' }],
      interval: 'day',
      dateRange: { date_from: day, date_to: day },
    },
  };
  const res = await server.request(`${env()}/insights/`, { method: 'POST', body: { name: `${event} users`, query } });
  expect(res.status).toBe(201);
  return res.body.result[0].data;
}

describe('reads after persons merge', () => {
  it('attributes personless events sent before $identify to the identified person', async () => {
    await server.ingest([
      { event: 'docs read', distinct_id: 'anon-a', timestamp: '2025-11-19T10:00:00Z', properties: { $process_person_profile: false } },
      {
        event: '$identify',
        distinct_id: 'user-a',
        timestamp: '2025-11-19T10:05:00Z',
        properties: { $anon_distinct_id: 'anon-a', $set: { plan: 'pro', email: 'a@example.com' } },
      },
      { event: 'docs read', distinct_id: 'user-a', timestamp: '2025-11-19T10:06:00Z', properties: {} },
    ]);
    const person = await personOf('user-a');
    expect(person.distinct_ids.sort()).toEqual(['anon-a', 'user-a']);

    expect(await uniqueUsers('docs read', '2025-11-19')).toEqual([1]);

    const byPerson = await server.request(
      `${env()}/events/?event=docs%20read&person_id=${person.uuid}&after=2025-11-01&include_person=true`,
    );
    expect(byPerson.body.results.map((e: any) => e.distinct_id).sort()).toEqual(['anon-a', 'user-a']);
    for (const event of byPerson.body.results) {
      // The identified person, even on the personless event sent before $identify.
      expect(event.person).toEqual({ is_identified: true, distinct_ids: [expect.any(String)], properties: { email: 'a@example.com' } });
      expect(person.distinct_ids).toContain(event.person.distinct_ids[0]);
    }

    const properties = encodeURIComponent(JSON.stringify([{ key: 'plan', value: 'pro', type: 'person' }]));
    const byProperty = await server.request(`${env()}/events/?event=docs%20read&properties=${properties}&after=2025-11-01`);
    expect(byProperty.body.results.map((e: any) => e.distinct_id).sort()).toEqual(['anon-a', 'user-a']);
  });

  it('attributes the events of a person merged into another to the one left', async () => {
    await server.ingest([
      { event: 'page seen', distinct_id: 'anon-b', timestamp: '2025-11-20T09:00:00Z', properties: {} },
      { event: 'page seen', distinct_id: 'user-b', timestamp: '2025-11-20T09:01:00Z', properties: {} },
    ]);
    expect(await uniqueUsers('page seen', '2025-11-20')).toEqual([2]);
    await server.ingest([
      {
        event: '$identify',
        distinct_id: 'user-b',
        timestamp: '2025-11-20T09:02:00Z',
        properties: { $anon_distinct_id: 'anon-b', $set: { email: 'b@example.com' } },
      },
    ]);
    expect(await uniqueUsers('page seen', '2025-11-20')).toEqual([1]);

    const person = await personOf('anon-b');
    expect(person.distinct_ids.sort()).toEqual(['anon-b', 'user-b']);
    const events = await server.request(`${env()}/events/?event=page%20seen&after=2025-11-01&include_person=1`);
    expect(events.body.results).toHaveLength(2);
    // Both events show the person left after the merge (the one with the e-mail set at the merge).
    for (const event of events.body.results) {
      expect(event.person).toEqual({ is_identified: true, distinct_ids: [expect.any(String)], properties: { email: 'b@example.com' } });
      expect(person.distinct_ids).toContain(event.person.distinct_ids[0]);
    }
    const byPerson = await server.request(`${env()}/events/?event=page%20seen&person_id=${person.uuid}&after=2025-11-01`);
    expect(byPerson.body.results).toHaveLength(2);
  });

  it('deletes, with the person, the events its distinct ids sent before it was deleted, not those of a person they belong to since', async () => {
    await server.ingest([
      { event: 'to forget', distinct_id: 'anon-c', timestamp: '2025-11-22T08:00:00Z', properties: { $process_person_profile: false } },
      { event: 'to forget', distinct_id: 'anon-d', timestamp: '2025-11-22T08:00:30Z', properties: {} },
      { event: '$identify', distinct_id: 'user-c', timestamp: '2025-11-22T08:01:00Z', properties: { $anon_distinct_id: 'anon-c' } },
      { event: '$identify', distinct_id: 'user-c', timestamp: '2025-11-22T08:01:30Z', properties: { $anon_distinct_id: 'anon-d' } },
      { event: 'to forget', distinct_id: 'user-c', timestamp: '2025-11-22T08:02:00Z', properties: {} },
      { event: 'to keep', distinct_id: 'someone-else', timestamp: '2025-11-22T08:03:00Z', properties: {} },
    ]);
    const person = await personOf('user-c');
    expect(person.distinct_ids.sort()).toEqual(['anon-c', 'anon-d', 'user-c']);
    expect((await server.request(`${env()}/persons/${person.uuid}/?delete_events=true`, { method: 'DELETE' })).status).toBe(202);
    // The id comes back later (a returning visitor): that event is a new person's, not the deleted one's.
    await clockPast();
    await server.ingest([{ event: 'to forget', distinct_id: 'anon-c', timestamp: '2025-11-22T07:59:00Z', properties: {} }]);
    // A batch that began before the deletion and read the id's person after it (PostgreSQL: read
    // committed) stores the new person's event with a creation time before the deletion's.
    await server.ingest([{ event: 'raced', distinct_id: 'anon-d', timestamp: '2025-11-22T07:58:00Z', properties: {} }]);
    const returning = await personOf('anon-d');
    expect(returning.uuid).not.toBe(person.uuid);
    const { db } = server.running.ctx.database;
    await db
      .updateTable('events')
      .set({ created_at: '2000-01-01T00:00:00.000Z' })
      .where('team_id', '=', server.bootstrap.team.id)
      .where('event', '=', 'raced')
      .execute();
    await server.running.deletions!.drain();
    const left = await server.request(`${env()}/events/?after=2025-11-22T00:00:00Z&before=2025-11-23T00:00:00Z`);
    expect(left.body.results.map((e: any) => `${e.event} ${e.distinct_id}`).sort()).toEqual([
      'raced anon-d',
      'to forget anon-c',
      'to keep someone-else',
    ]);
  });

  it('keeps personless distinct ids that were never identified apart, and without a person', async () => {
    await server.ingest([
      { event: 'anon only', distinct_id: 'visitor-1', timestamp: '2025-11-21T08:00:00Z', properties: { $process_person_profile: false } },
      { event: 'anon only', distinct_id: 'visitor-2', timestamp: '2025-11-21T08:01:00Z', properties: { $process_person_profile: false } },
      { event: 'anon only', distinct_id: 'visitor-2', timestamp: '2025-11-21T08:02:00Z', properties: { $process_person_profile: false } },
    ]);
    expect(await uniqueUsers('anon only', '2025-11-21')).toEqual([2]);
    const events = await server.request(`${env()}/events/?event=anon%20only&after=2025-11-01&include_person=true`);
    expect(events.body.results.map((e: any) => e.person)).toEqual([null, null, null]);
  });
});
