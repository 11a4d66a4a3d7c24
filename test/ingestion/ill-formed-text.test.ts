import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

/**
 * Strings no database stores as they are: NUL (PostgreSQL refuses it in text, jsonb refuses its
 * `\u0000` escape) and lone UTF-16 surrogates (both drivers write U+FFFD instead; jsonb refuses the
 * `\ud800` escape). Clients send them (JSON.stringify writes them as escapes). An event that got a
 * 200 is never lost: such events are stored on both backends, with U+FFFD in place, on the person
 * of their distinct id, and the distinct id keeps working for the events after them.
 */
const server = useTestServer();

const R = '\uFFFD';
const NUL = '\u0000';
const HIGH = '\uD800';
const LOW = '\uDC00';
const PAIR = '\uD83D\uDE00'; // 😀, a valid surrogate pair

const env = () => `/api/environments/${server.bootstrap.team.id}`;

async function send(batch: Array<Record<string, unknown>>): Promise<void> {
  // JSON.stringify writes NUL as \u0000 and lone surrogates as \ud800-style escapes, as SDKs do.
  const body = JSON.stringify({ api_key: server.token, batch });
  expect(body).toContain('\\u0000');
  const res = await fetch(`${server.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(res.status).toBe(200);
  await server.settle();
}

async function eventsOfPerson(personUuid: string): Promise<any[]> {
  const res = await server.request(`${env()}/events/?person_id=${personUuid}&limit=100&include_person=true`);
  expect(res.status).toBe(200);
  return res.body.results;
}

describe('events with NUL and lone surrogates in their distinct id, name, properties and $set', () => {
  it('are all stored, on one person, with U+FFFD in place, and none is parked', async () => {
    const distinctId = `ill-${NUL}-${HIGH}-${LOW}${HIGH}-${PAIR}`;
    const stored = `ill-${R}-${R}-${R}${R}-${PAIR}`;
    const anon = `anon-${NUL}${LOW}`;
    const storedAnon = `anon-${R}${R}`;

    await send([
      {
        event: 'first',
        distinct_id: distinctId,
        properties: {
          [`key${NUL}`]: `value${NUL}`,
          [`key${HIGH}`]: `value${LOW}`,
          nested: { list: [HIGH, { [LOW]: `x${LOW}${HIGH}`, deep: [[NUL]] }], pair: PAIR },
          typed: '\\u0000 and \\ud800', // a user typed a backslash: text, kept as it is
          $session_id: `session${NUL}`,
          $set: { name: `a${NUL}b`, [`tag${HIGH}`]: [LOW, PAIR] },
          $set_once: { first_seen: `then${HIGH}` },
        },
      },
      {
        event: '$groupidentify',
        distinct_id: distinctId,
        properties: { $group_type: `company${NUL}`, $group_key: `acme${NUL}${HIGH}`, $group_set: { name: `Acme${NUL}`, [LOW]: 1 } },
      },
    ]);
    // The second request finds the person stored by the first, under its stored distinct id.
    await send([
      {
        event: `second${NUL}${HIGH}`,
        distinct_id: distinctId,
        properties: { $set: { plan: `pro${HIGH}` }, $groups: { [`company${NUL}`]: `acme${NUL}${HIGH}` } },
      },
      { event: '$identify', distinct_id: distinctId, properties: { $anon_distinct_id: anon } },
    ]);
    await send([{ event: 'from the anonymous id', distinct_id: anon, properties: { n: 1 } }]);

    // Nothing parked or left behind, nothing failed.
    const db = server.running.ctx.database.db;
    expect(await db.selectFrom('ingestion_queue').select('id').execute()).toEqual([]);
    const failed = await db
      .selectFrom('ingestion_warnings')
      .select(['type', 'details'])
      .where('type', '=', 'event_processing_failed')
      .execute();
    expect(failed).toEqual([]);
    // Definitions name the property and the event as they are stored.
    const defs = await server.request(`${env()}/property_definitions/?search=key`);
    expect(defs.body.results.map((d: any) => d.name)).toContain(`key${R}`);
    const eventDefs = await server.request(`${env()}/event_definitions/?search=second`);
    expect(eventDefs.body.results.map((d: any) => d.name)).toEqual([`second${R}${R}`]);

    // One person, with both (well-formed) distinct ids and the well-formed $set values.
    const persons = await server.request(`${env()}/persons/?distinct_id=${encodeURIComponent(stored)}`);
    expect(persons.body.results).toHaveLength(1);
    const person = persons.body.results[0];
    expect([...person.distinct_ids].sort()).toEqual([storedAnon, stored].sort());
    expect(person.properties).toMatchObject({ name: `a${R}b`, [`tag${R}`]: [R, PAIR], first_seen: `then${R}`, plan: `pro${R}` });
    const byAnon = await server.request(`${env()}/persons/?distinct_id=${encodeURIComponent(storedAnon)}`);
    expect(byAnon.body.results.map((p: any) => p.uuid)).toEqual([person.uuid]);

    // Every event, read back through the events API, is on that person.
    const events = await eventsOfPerson(person.uuid);
    const byName = new Map(events.map((e) => [e.event, e]));
    expect([...byName.keys()].sort()).toEqual(['$groupidentify', '$identify', 'first', 'from the anonymous id', `second${R}${R}`].sort());
    expect(events).toHaveLength(5);
    for (const e of events) expect(e.distinct_id).toBe(e.event === 'from the anonymous id' ? storedAnon : stored);

    const first = byName.get('first');
    expect(first.properties).toMatchObject({
      [`key${R}`]: `value${R}`,
      nested: { list: [R, { [R]: `x${R}${R}`, deep: [[R]] }], pair: PAIR },
      typed: '\\u0000 and \\ud800',
      $session_id: `session${R}`,
      $set: { name: `a${R}b`, [`tag${R}`]: [R, PAIR] },
      $set_once: { first_seen: `then${R}` },
    });
    // Two keys that became equal ("key" + NUL, "key" + lone high): one is kept.
    expect(Object.keys(first.properties).filter((k) => k.startsWith('key'))).toEqual([`key${R}`]);
    // The events API shows one of the person's distinct ids (PostHog: `distinct_ids[:1]`).
    expect(first.person.distinct_ids).toHaveLength(1);
    expect([storedAnon, stored]).toContain(first.person.distinct_ids[0]);
    const stringProperties = JSON.stringify(events.map((e) => e.properties));
    expect(stringProperties).not.toMatch(/(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/);

    const second = byName.get(`second${R}${R}`);
    expect(second.properties).toMatchObject({ $set: { plan: `pro${R}` }, $group_0: `acme${R}${R}` });
    expect(byName.get('$identify').properties.$anon_distinct_id).toBe(storedAnon);

    // The group, under its well-formed type and key, with well-formed properties.
    const types = await server.request(`${env()}/groups_types/`);
    expect(types.body.map((t: any) => t.group_type)).toEqual([`company${R}`]);
    const group = await server.request(`${env()}/groups/find/?group_type_index=0&group_key=${encodeURIComponent(`acme${R}${R}`)}`);
    expect(group.status).toBe(200);
    expect(group.body.group_properties).toEqual({ name: `Acme${R}`, [R]: 1 });
    // PostHog attaches `$group_<n>` from `$groups` only, not for the group a `$groupidentify` names.
    expect(byName.get('$groupidentify').properties.$group_0).toBeUndefined();
  });
});
