/**
 * The events list's filters as PostHog's EventViewSet reads them: `properties` as a list or as
 * AND/OR groups nested as written (other shapes filter nothing), `person_id` as a person's uuid in
 * any form uuid.UUID reads or its numeric id, and `offset` applied to the page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKEND } from '../helpers/backend.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const list = (query: string) => server.request(`${env()}/events/?${query}`);
const withProperties = (properties: unknown, extra = 'event=prop%20test') =>
  list(`${extra}&properties=${encodeURIComponent(typeof properties === 'string' ? properties : JSON.stringify(properties))}`);
const names = (res: { body: any }) => res.body.results.map((e: any) => e.properties.name).sort();

beforeAll(async () => {
  await server.ingest([
    {
      event: 'prop test',
      distinct_id: 'prop-a',
      timestamp: '2025-10-01T10:00:00Z',
      properties: { name: 'e1', browser: 'Chrome', plan: 'pro' },
    },
    {
      event: 'prop test',
      distinct_id: 'prop-b',
      timestamp: '2025-10-01T10:01:00Z',
      properties: { name: 'e2', browser: 'Firefox', plan: 'free', $set: { email: 'b@example.com' } },
    },
    {
      event: 'prop test',
      distinct_id: 'prop-c',
      timestamp: '2025-10-01T10:02:00Z',
      properties: { name: 'e3', browser: 'Safari', plan: 'pro' },
    },
  ]);
});

describe('properties', () => {
  it('honours OR groups, nested groups and person filters inside them', async () => {
    const either = {
      type: 'OR',
      values: [
        { key: 'browser', value: 'Chrome' },
        { key: 'browser', value: 'Firefox' },
      ],
    };
    expect(names(await withProperties(either))).toEqual(['e1', 'e2']);

    const nested = {
      type: 'AND',
      values: [
        { key: 'plan', value: 'pro' },
        {
          type: 'OR',
          values: [
            { key: 'browser', value: 'Chrome' },
            { key: 'browser', value: 'Safari' },
          ],
        },
      ],
    };
    expect(names(await withProperties(nested))).toEqual(['e1', 'e3']);

    const personOrEvent = {
      type: 'OR',
      values: [
        { key: 'browser', value: 'Safari' },
        { key: 'email', value: 'b@example.com', type: 'person' },
      ],
    };
    expect(names(await withProperties(personOrEvent))).toEqual(['e2', 'e3']);

    // A group inside a list, and groups many levels deep.
    expect(names(await withProperties([{ key: 'plan', value: 'pro' }, either]))).toEqual(['e1']);
    // An empty group is true (it drops out of an AND); a group of one is its member.
    let deep: unknown = { key: 'browser', value: 'Firefox' };
    for (let i = 0; i < 30; i++) {
      deep =
        i % 2
          ? { type: 'AND', values: [deep, { type: 'OR', values: [] }] }
          : { type: 'OR', values: [{ key: 'browser', value: 'Opera' }, deep] };
    }
    expect(names(await withProperties({ type: 'OR', values: [deep] }))).toEqual(['e2']);
    expect(
      names(
        await withProperties({
          type: 'OR',
          values: [
            { key: 'browser', value: 'Opera' },
            { type: 'AND', values: [] },
          ],
        }),
      ),
    ).toEqual(['e1', 'e2', 'e3']);
    // Many filters in one request (200 bound values and their JSON paths).
    const wide = { type: 'OR', values: Array.from({ length: 200 }, (_, i) => ({ key: 'browser', value: i === 150 ? 'Safari' : `b${i}` })) };
    expect(names(await withProperties(wide))).toEqual(['e3']);
  });

  it('reads person filters on the person of each distinct id, an event without one as a person without properties', async () => {
    await server.ingest([
      { event: 'person test', distinct_id: 'pt-a', timestamp: '2025-10-05T10:00:00Z', properties: { name: 'a', $set: { email: 'a@x' } } },
      { event: 'person test', distinct_id: 'pt-b', timestamp: '2025-10-05T10:01:00Z', properties: { name: 'b', $set: { plan: 'x' } } },
      {
        event: 'person test',
        distinct_id: 'pt-c',
        timestamp: '2025-10-05T10:02:00Z',
        properties: { name: 'c', $process_person_profile: false },
      },
    ]);
    const by = async (filter: Record<string, unknown>) =>
      names(await withProperties([{ type: 'person', ...filter }], 'event=person%20test'));
    expect(await by({ key: 'email', operator: 'is_set' })).toEqual(['a']);
    expect(await by({ key: 'email', operator: 'is_not_set' })).toEqual(['b', 'c']);
    expect(await by({ key: 'email', operator: 'is_not', value: 'a@x' })).toEqual(['b', 'c']);
    expect(await by({ key: 'email', value: 'a@x' })).toEqual(['a']);
    expect(await by({ key: 'email', value: [] })).toEqual(['a', 'b', 'c']);
  });

  it("compares as HogQL does, with the persons list's compiler: regex, lists, null rules, numbers", async () => {
    const by = async (filter: Record<string, unknown>) => names(await withProperties([filter]));
    expect(await by({ key: 'browser', operator: 'regex', value: '^(Chrome|Safari)$' })).toEqual(['e1', 'e3']);
    expect(await by({ key: 'browser', operator: 'regex', value: '(?i)^FIRE' })).toEqual(['e2']);
    expect(await by({ key: 'browser', operator: 'not_regex', value: 'fox$' })).toEqual(['e1', 'e3']);
    // A missing property: no match for regex, a match for not_regex.
    expect(await by({ key: 'missing', operator: 'regex', value: '.*' })).toEqual([]);
    expect(await by({ key: 'missing', operator: 'not_regex', value: '.*' })).toEqual(['e1', 'e2', 'e3']);
    // Several values: any of them (regex), none of them (not_regex).
    expect(await by({ key: 'name', operator: 'regex', value: ['1$', '3$'] })).toEqual(['e1', 'e3']);
    expect(await by({ key: 'name', operator: 'not_regex', value: ['1$', '3$'] })).toEqual(['e2']);
    expect(await by({ key: 'browser', operator: 'exact', value: ['Chrome', 'Safari'] })).toEqual(['e1', 'e3']);
    expect(await by({ key: 'browser', operator: 'is_not', value: ['Chrome', 'Safari'] })).toEqual(['e2']);
    expect(await by({ key: 'plan', operator: 'in', value: ['free', 'nope'] })).toEqual(['e2']);
    expect(await by({ key: 'browser', operator: 'icontains', value: ['CHR', 'saf'] })).toEqual(['e1', 'e3']);
    expect(await by({ key: 'missing', operator: 'is_not', value: 'x' })).toEqual(['e1', 'e2', 'e3']);
    expect(await by({ key: 'name', operator: 'gt', value: 'e1' })).toEqual(['e2', 'e3']);
  });

  it('reads a regex alike on both backends: word boundaries, `.` across lines as ClickHouse, named groups', async () => {
    await server.ingest([
      {
        event: 'regex test',
        distinct_id: 'rx-1',
        timestamp: '2025-10-04T10:00:00Z',
        properties: { name: 'r1', text: 'line one\nline two', word: 'a pro plan' },
      },
      {
        event: 'regex test',
        distinct_id: 'rx-2',
        timestamp: '2025-10-04T10:01:00Z',
        properties: { name: 'r2', text: 'single line', word: 'approval' },
      },
      {
        event: 'regex test',
        distinct_id: 'rx-3',
        timestamp: '2025-10-04T10:02:00Z',
        properties: { name: 'r3', long: `${'a'.repeat(5000)}!` },
      },
    ]);
    const by = async (filter: Record<string, unknown>) => names(await withProperties([filter], 'event=regex%20test'));
    expect(await by({ key: 'word', operator: 'regex', value: '\\bpro\\b' })).toEqual(['r1']);
    expect(await by({ key: 'word', operator: 'not_regex', value: '\\bpro\\b' })).toEqual(['r2', 'r3']);
    expect(await by({ key: 'word', operator: 'regex', value: '\\Bpro\\B' })).toEqual(['r2']);
    expect(await by({ key: 'text', operator: 'regex', value: 'one.line' })).toEqual(['r1']);
    expect(await by({ key: 'text', operator: 'regex', value: 'line\\z' })).toEqual(['r2']);
    expect(await by({ key: 'word', operator: 'regex', value: '(?P<w>pro) plan' })).toEqual(['r1']);
    expect(await by({ key: 'word', operator: 'regex', value: '^(?<w>ap)pro' })).toEqual(['r2']);
    // A pattern that backtracks exponentially on a backtracking engine answers at once.
    expect(await by({ key: 'long', operator: 'regex', value: '(a+)+$' })).toEqual([]);
    expect(await by({ key: 'long', operator: 'not_regex', value: '(a+)+$' })).toEqual(['r1', 'r2', 'r3']);
  });

  it('refuses a pattern RE2 does not take, and operators it does not know, with 400', async () => {
    for (const filter of [
      { key: 'browser', operator: 'regex', value: '(' },
      { key: 'browser', operator: 'regex', value: 'Chrome(?=x)' },
      { key: 'browser', operator: 'not_regex', value: '(a)\\1' },
      { key: 'browser', operator: 'sounds_like', value: 'x' },
      { key: 'n', operator: 'between', value: [3, 1] },
    ]) {
      const res = await withProperties([filter]);
      expect(res.status, JSON.stringify(filter)).toBe(400);
      expect(res.body, JSON.stringify(filter)).toMatchObject({ type: 'validation_error', attr: 'properties' });
    }
    // What RE2 takes (a flag group within the pattern) matches events, which ClickHouse reads.
    const inner = await withProperties([{ key: 'browser', operator: 'regex', value: 'C(?i)HROME' }]);
    expect(inner.status).toBe(200);
    expect(names(inner)).toEqual(['e1']);
    // Persons are read by the SQL database: PostgreSQL's engine refuses it, a 400 there, never a
    // 500; SQLite, on RE2 itself, matches.
    const person = await withProperties([{ key: 'email', type: 'person', operator: 'regex', value: 'b(?i)@EXAMPLE' }]);
    expect(person.status).toBe(BACKEND === 'postgres' ? 400 : 200);
    if (person.status === 200) expect(names(person)).toEqual(['e2']);
  });

  it('filters nothing with shapes PostHog does not read as filters, and drops items that are not objects', async () => {
    // The old `{"$browser": "Chrome"}` dict form, a scalar, a group whose values are not a list.
    for (const shape of [{ browser: 'Chrome' }, 5, '"text"', { type: 'OR', values: 'x' }]) {
      const res = await withProperties(shape);
      expect(res.status).toBe(200);
      expect(names(res)).toEqual(['e1', 'e2', 'e3']);
    }
    expect(names(await withProperties([1, 'x', null, [2], { key: 'browser', value: 'Chrome' }]))).toEqual(['e1']);
  });

  it("answers unparsable JSON with PostHog's message, without an attr", async () => {
    const res = await withProperties('[{"key": "browser"');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Properties are unparsable!', attr: null });
  });

  it('refuses groups of another type and hostile trees with 400, at once', async () => {
    const xor = await withProperties({ type: 'XOR', values: [{ key: 'browser', value: 'Chrome' }] });
    expect(xor.status).toBe(400);
    expect(xor.body).toMatchObject({ type: 'validation_error', attr: 'properties' });

    // Deeper than the SQL may nest (the URL's size keeps the other bounds out of reach).
    let deep = '{"key":"browser","value":"Chrome"}';
    for (let i = 0; i < 60; i++) deep = `{"type":"OR","values":[${deep}]}`;
    const res = await withProperties(deep);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'properties' });
    expect(res.body.detail).toMatch(/^Properties are too complex/);
    // Nested lists are not objects: dropped, whatever their depth.
    const lists = await withProperties(`${'['.repeat(1500)}${']'.repeat(1500)}`);
    expect(lists.status).toBe(200);
    expect(names(lists)).toEqual(['e1', 'e2', 'e3']);
  });
});

describe('person_id', () => {
  it("takes the person's numeric id or its uuid in any form uuid.UUID reads", async () => {
    await server.ingest([
      { event: 'by person', distinct_id: 'pid-1', timestamp: '2025-10-02T10:00:00Z', properties: { $set: { email: 'p@example.com' } } },
    ]);
    const person = (await server.request(`${env()}/persons/?distinct_id=pid-1`)).body.results[0];
    const hex = person.uuid.replaceAll('-', '');
    for (const ref of [String(person.id), person.uuid.toUpperCase(), hex, `{${person.uuid}}`, `urn:uuid:${person.uuid}`]) {
      const res = await list(`person_id=${encodeURIComponent(ref)}`);
      expect(res.status).toBe(200);
      expect(
        res.body.results.map((e: any) => e.event),
        ref,
      ).toEqual(['by person']);
    }
    // Numbers and texts that name no one: no events, not an error.
    for (const ref of ['987654321', '99999999999999999999999', 'abc', '-1']) {
      const res = await list(`person_id=${encodeURIComponent(ref)}`);
      expect(res.status, ref).toBe(200);
      expect(res.body).toEqual({ next: null, results: [] });
    }
  });
});

describe('distinct_id', () => {
  it('filters whenever it is given, even empty', async () => {
    expect((await list('event=prop%20test&distinct_id=prop-b')).body.results.map((e: any) => e.properties.name)).toEqual(['e2']);
    expect((await list('event=prop%20test&distinct_id=')).body).toEqual({ next: null, results: [] });
  });
});

describe('offset', () => {
  it('skips that many events, so paging by offset ends', async () => {
    await server.ingest(
      Array.from({ length: 5 }, (_, i) => ({
        event: 'paged',
        distinct_id: 'pager',
        timestamp: `2025-10-03T10:0${i}:00Z`,
        properties: { i },
      })),
    );
    const seen: number[] = [];
    for (let offset = 0; offset < 20; offset += 2) {
      const res = await list(`event=paged&limit=2&offset=${offset}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.results.map((e: any) => e.properties.i));
      if (res.body.results.length < 2) break;
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);
    expect((await list('event=paged&limit=2&offset=4')).body.next).toBeNull();
    expect((await list('event=paged&limit=2&offset=2')).body.next).not.toBeNull();
    // Unreadable or negative: from the start.
    for (const offset of ['abc', '-3', '1.5']) {
      expect(
        (await list(`event=paged&limit=2&offset=${offset}`)).body.results.map((e: any) => e.properties.i),
        offset,
      ).toEqual([4, 3]);
    }
    expect((await list('event=paged&offset=99999999999999999999')).body.results).toEqual([]);
  });
});
