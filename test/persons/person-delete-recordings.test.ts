/**
 * `delete_recordings` on DELETE …/persons/:id/: as PostHog's delete-recordings-with-person
 * workflow, the session recordings of the person's distinct ids go (in the background, with their
 * snapshot data, views and sharing); other people's recordings, and recordings its distinct ids
 * start after the deletion, stay.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { clockPast } from '../helpers/wait.js';
import { fullSnapshot, meta, newSessionId, postSnapshots, snapshotEvent } from '../recordings/helpers.js';
import { personsPath } from './person-fixtures.js';

const server = useTestServer();
const recordingPath = (sessionId: string) => `/api/environments/${server.bootstrap.team.id}/session_recordings/${sessionId}/`;

/** A person with both distinct ids, through the capture pipeline. */
async function identify(distinctId: string, anonymousId: string) {
  await server.ingest([{ event: '$identify', distinct_id: distinctId, properties: { $anon_distinct_id: anonymousId } }]);
  return (await server.request(personsPath(server, `?distinct_id=${distinctId}`))).body.results[0];
}

/** A recording of the distinct id, posted to /s/ as posthog-js does. */
async function record(distinctId: string): Promise<string> {
  const sessionId = newSessionId();
  const t = Date.now() - 60_000;
  const body = JSON.stringify([
    snapshotEvent(server.token, sessionId, [meta(t, 'https://app.example/'), fullSnapshot(t + 1)], { distinctId }),
  ]);
  expect((await postSnapshots(server, body, 'application/json')).status).toBe(200);
  return sessionId;
}

const status = async (sessionId: string) => (await server.request(recordingPath(sessionId))).status;

/** Stored rows of these recordings in every recordings table (read from storage, not the API). */
async function storedRows(sessionIds: string[]): Promise<number> {
  const { db } = server.running.ctx.database;
  let rows = 0;
  for (const table of ['session_recordings', 'recording_chunks', 'recording_views', 'recording_sharing'] as const) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('session_id', 'in', sessionIds)
      .executeTakeFirst();
    rows += Number(row?.n ?? 0);
  }
  return rows;
}

describe('deleting a person with delete_recordings', () => {
  it("deletes the recordings of all its distinct ids, with their data, views and sharing; not other people's", async () => {
    const person = await identify('rec-user', 'rec-anon');
    const own = [await record('rec-anon'), await record('rec-user')];
    const other = await record('rec-someone-else');
    // Viewed and shared: those rows go with the recording.
    await server.request(recordingPath(own[0]!), { method: 'PATCH', body: { viewed: true } });
    await server.request(`${recordingPath(own[0]!)}sharing/`, { method: 'PATCH', body: { enabled: true } });
    // Two recordings, a chunk each, a view and a sharing row.
    const rowsBefore = await storedRows(own);

    const res = await server.request(personsPath(server, `${person.uuid}/?delete_recordings`), { method: 'DELETE' });
    await server.running.deletions!.drain();

    expect({
      answer: [res.status, res.text],
      rowsBefore,
      own: await Promise.all(own.map(status)),
      rows: await storedRows(own),
      other: await status(other),
    }).toEqual({ answer: [202, ''], rowsBefore: 6, own: [404, 404], rows: 0, other: 200 });
  });

  it('with keep_person, keeps the person and the recordings its distinct ids start after the deletion', async () => {
    const person = await identify('kept-rec-user', 'kept-rec-anon');
    const before = await record('kept-rec-anon');
    const res = await server.request(personsPath(server, `${person.uuid}/?keep_person&delete_recordings`), { method: 'DELETE' });
    await clockPast(); // what is recorded next comes after the deletion's millisecond
    const after = await record('kept-rec-user');
    await server.running.deletions!.drain();

    const kept = await server.request(personsPath(server, `${person.uuid}/`));
    expect({ answer: res.status, person: kept.status, before: await status(before), after: await status(after) }).toEqual({
      answer: 202,
      person: 200,
      before: 404,
      after: 200,
    });
  });
});
