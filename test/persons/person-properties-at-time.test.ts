/**
 * GET …/persons/properties_at_time/ (PostHog's PersonViewSet `properties_at_time`): the person with
 * the properties its events' `$set` (and, asked for, `$set_once` events' `$set_once`) gave it up to
 * `timestamp`, over all its distinct ids, and what was asked; the pure parts (reading the moment,
 * the rebuild) tested directly.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readPointInTime, rebuildProperties } from '../../src/persons/properties-at-time.js';
import { useTestServer } from '../helpers/server.js';
import { personsPath } from './person-fixtures.js';

describe('the moment asked for', () => {
  it("reads a trailing Z, an offset and a naive time as PostHog does, and prints Python's isoformat", () => {
    const read = (text: string) => {
      const at = readPointInTime(text);
      return at && { instant: new Date(at.ms).toISOString(), micros: at.extraMicros, isoformat: at.isoformat };
    };
    expect(read('2026-01-02T12:00:00Z')).toEqual({
      instant: '2026-01-02T12:00:00.000Z',
      micros: 0,
      isoformat: '2026-01-02T12:00:00+00:00',
    });
    expect(read('2026-01-02T14:00:00+02:00')).toEqual({
      instant: '2026-01-02T12:00:00.000Z',
      micros: 0,
      isoformat: '2026-01-02T14:00:00+02:00',
    });
    expect(read('2026-01-02T07:00:00.000250-05:00')).toEqual({
      instant: '2026-01-02T12:00:00.000Z',
      micros: 250,
      isoformat: '2026-01-02T07:00:00.000250-05:00',
    });
    expect(read('2026-01-02T12:00:00')).toEqual({ instant: '2026-01-02T12:00:00.000Z', micros: 0, isoformat: '2026-01-02T12:00:00+00:00' });
    expect(read('2026-01-02')).toEqual({ instant: '2026-01-02T00:00:00.000Z', micros: 0, isoformat: '2026-01-02T00:00:00+00:00' });
    // `Z` is taken off and the rest read as UTC, whatever offset it names (`.replace(tzinfo=UTC)`).
    expect(read('2026-01-02T12:00:00+05:00Z')?.instant).toBe('2026-01-02T12:00:00.000Z');
    // A `+` as the date-time separator: naive, read as UTC, printed without an offset.
    expect(read('2026-01-02+12:00:00')).toEqual({ instant: '2026-01-02T12:00:00.000Z', micros: 0, isoformat: '2026-01-02T12:00:00' });
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-02T25:00:00', '']) expect(read(bad), bad).toBeUndefined();
  });
});

describe('the rebuild', () => {
  it("lays each $set over the last, and a $set_once event's keys only where none is, when asked", () => {
    const rows = [
      { event: 'pageview', set: '{"plan":"free","color":"red"}', setOnce: '{"first":"x"}' },
      { event: '$set', set: '{"plan":"pro"}', setOnce: null },
      { event: '$set_once', set: null, setOnce: '{"plan":"ignored","first":"a"}' },
      { event: 'clicked', set: '"not an object"', setOnce: null },
      { event: 'clicked', set: '[1,2]', setOnce: null },
    ];
    expect({ ...rebuildProperties(rows, false) }).toEqual({ plan: 'pro', color: 'red' });
    expect({ ...rebuildProperties(rows, true) }).toEqual({ plan: 'pro', color: 'red', first: 'a' });
    // A `__proto__` key is kept as a property (JSON.parse makes it an own key).
    const odd = rebuildProperties([{ event: '$set', set: '{"__proto__":{"x":1},"a":1}', setOnce: null }], false);
    expect(JSON.parse(JSON.stringify(odd))).toEqual(JSON.parse('{"__proto__":{"x":1},"a":1}'));
    expect(Object.keys(odd)).toEqual(['__proto__', 'a']);
  });
});

const server = useTestServer();
const at = (query: string) => server.request(personsPath(server, `properties_at_time/?${query}`));
let personUuid: string;

beforeAll(async () => {
  await server.ingest([
    { event: 'pageview', timestamp: '2026-01-01T10:00:00Z', properties: { distinct_id: 'pit-anon', $set: { plan: 'free', color: 'red' } } },
    { event: '$set', timestamp: '2026-01-02T10:00:00Z', properties: { distinct_id: 'pit-anon', $set: { plan: 'pro' } } },
    {
      event: '$set_once',
      timestamp: '2026-01-03T10:00:00Z',
      properties: { distinct_id: 'pit-anon', $set_once: { first_seen: 'january', plan: 'ignored' } },
    },
    {
      event: '$identify',
      timestamp: '2026-01-04T10:00:00Z',
      properties: { distinct_id: 'pit-user', $anon_distinct_id: 'pit-anon', $set: { email: 'pit@example.com' } },
    },
    {
      event: 'clicked',
      timestamp: '2026-01-05T10:00:00Z',
      properties: { distinct_id: 'pit-user', $set_once: { not_a_set_once_event: true } },
    },
    // Older than two years before the moments below: out of the scan.
    { event: '$set', timestamp: '2023-06-01T10:00:00Z', properties: { distinct_id: 'pit-user', $set: { ancient: true } } },
  ]);
  personUuid = (await server.request(personsPath(server, '?distinct_id=pit-user'))).body.results[0].uuid;
});

describe('properties at a time', () => {
  it("rebuilds the person's properties from all its distinct ids' events up to the moment, inclusive", async () => {
    const before = await at('distinct_id=pit-anon&timestamp=2026-01-02T10:00:00Z');
    expect(before.status, before.text).toBe(200);
    expect(before.body.properties).toEqual({ plan: 'pro', color: 'red' });
    expect(before.body).toMatchObject({ uuid: personUuid, distinct_ids: ['pit-anon', 'pit-user'] });
    expect(before.body.point_in_time_metadata).toEqual({
      queried_timestamp: '2026-01-02T10:00:00+00:00',
      include_set_once: false,
      distinct_id_used: 'pit-anon',
      person_id_used: null,
      query_mode: 'distinct_id',
      distinct_ids_queried: ['pit-anon', 'pit-user'],
      distinct_ids_count: 2,
    });
    const justBefore = await at('distinct_id=pit-anon&timestamp=2026-01-02T09:59:59.999999Z');
    expect(justBefore.body.properties).toEqual({ plan: 'free', color: 'red' });
  });

  it('by person uuid, with $set_once events when asked, and a moment given with an offset', async () => {
    const res = await at(`person_id=${personUuid}&timestamp=2026-01-05T12:00:00%2B02:00&include_set_once=True`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.properties).toEqual({ plan: 'pro', color: 'red', first_seen: 'january', email: 'pit@example.com' });
    expect(res.body.point_in_time_metadata).toMatchObject({
      queried_timestamp: '2026-01-05T12:00:00+02:00',
      include_set_once: true,
      person_id_used: personUuid,
      query_mode: 'person_id',
      distinct_id_used: null,
    });
    const withoutSetOnce = await at(`person_id=${personUuid}&timestamp=2026-01-05T12:00:00Z`);
    expect(withoutSetOnce.body.properties).toEqual({ plan: 'pro', color: 'red', email: 'pit@example.com' });
  });

  it("answers PostHog's refusals, its `error` beside the envelope", async () => {
    const answers = {
      both: await at(`distinct_id=pit-user&person_id=${personUuid}&timestamp=2026-01-05T00:00:00Z`),
      neither: await at('timestamp=2026-01-05T00:00:00Z'),
      noTime: await at('distinct_id=pit-user&timestamp='),
      badTime: await at('distinct_id=pit-user&timestamp=last%20tuesday'),
      nobody: await at('distinct_id=nobody&timestamp=2026-01-05T00:00:00Z'),
      notAUuid: await at('person_id=42&timestamp=2026-01-05T00:00:00Z'),
    };
    const summary = Object.fromEntries(
      Object.entries(answers).map(([k, r]) => [k, [r.status, r.body.error, r.body.detail === r.body.error]]),
    );
    expect(summary).toEqual({
      both: [400, 'Cannot provide both distinct_id and person_id - choose one', true],
      neither: [400, 'Must provide either distinct_id or person_id parameter', true],
      noTime: [400, 'timestamp parameter is required (ISO format: 2023-06-15T14:30:00Z)', true],
      badTime: [400, 'Invalid timestamp format. Use ISO format like 2023-06-15T14:30:00Z', true],
      nobody: [404, "Person with distinct_id 'nobody' not found", true],
      notAUuid: [404, "Person with person_id '42' not found", true],
    });
    expect(answers.both.body.type).toBe('validation_error');
  });
});
