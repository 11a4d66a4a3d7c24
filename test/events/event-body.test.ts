/**
 * An event as PostHog's ClickhouseEventSerializer shows it: `elements` read from the elements
 * chain, the person only with `include_person` (one distinct id; email, name and username), and
 * `timestamp` as Python's isoformat of the UTC instant. Retrieving by a text that is not a uuid,
 * or a uuid no event has, answers as PostHog does.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const CHAIN =
  'a.btn.primary:attr__href="/signup"href="/signup"nth-child="2"nth-of-type="1"text="Sign \\"up\\"";div.wrapper:attr__id="main"attr_id="main"nth-child="1"nth-of-type="x";:text="bare"';

const element = (fields: Record<string, unknown>) => ({
  event: null,
  text: null,
  tag_name: null,
  attr_class: null,
  href: null,
  attr_id: null,
  nth_child: null,
  nth_of_type: null,
  attributes: {},
  ...fields,
});

let clickId: string;

beforeAll(async () => {
  await server.ingest([
    {
      event: '$autocapture',
      distinct_id: 'clicker',
      timestamp: '2025-09-01T10:00:00Z',
      properties: { $elements_chain: CHAIN, $set: { email: 'c@example.com', name: 'Clicker', plan: 'pro', username: 'clk' } },
    },
    { event: 'plain', distinct_id: 'clicker', timestamp: '2025-09-01T10:01:00Z', properties: {} },
  ]);
  const res = await server.request(`${env()}/events/?event=%24autocapture`);
  clickId = res.body.results[0].id;
});

describe('the event body', () => {
  it('carries the elements parsed from the elements chain, in order', async () => {
    const [click] = (await server.request(`${env()}/events/?event=%24autocapture`)).body.results;
    expect(click.elements_chain).toBe(CHAIN);
    expect(click.elements).toEqual([
      element({
        text: 'Sign \\"up\\"',
        tag_name: 'a',
        attr_class: ['btn', 'primary'],
        href: '/signup',
        nth_child: 2,
        nth_of_type: 1,
        attributes: { attr__href: '/signup' },
        order: 0,
      }),
      element({ tag_name: 'div', attr_class: ['wrapper'], attr_id: 'main', nth_child: 1, attributes: { attr__id: 'main' }, order: 1 }),
      element({ text: 'bare', order: 2 }),
    ]);
    const [plain] = (await server.request(`${env()}/events/?event=plain`)).body.results;
    expect(plain.elements).toEqual([]);
    expect((await server.request(`${env()}/events/${clickId}/`)).body.elements).toHaveLength(3);
  });

  it('shows the person only with include_person, with one distinct id and only its display properties', async () => {
    const shown = {
      is_identified: false,
      distinct_ids: ['clicker'],
      properties: { email: 'c@example.com', name: 'Clicker', username: 'clk' },
    };
    expect((await server.request(`${env()}/events/?event=plain`)).body.results[0].person).toBeNull();
    expect((await server.request(`${env()}/events/?event=plain&include_person=false`)).body.results[0].person).toBeNull();
    for (const flag of ['true', 'TRUE', '1']) {
      expect((await server.request(`${env()}/events/?event=plain&include_person=${flag}`)).body.results[0].person, flag).toEqual(shown);
    }
    expect((await server.request(`${env()}/events/${clickId}/`)).body.person).toBeNull();
    expect((await server.request(`${env()}/events/${clickId}/?include_person=true`)).body.person).toEqual(shown);
  });
});

describe('retrieve', () => {
  it('finds the event by its uuid in any form uuid.UUID reads', async () => {
    for (const ref of [clickId.toUpperCase(), clickId.replaceAll('-', ''), `{${clickId}}`, `urn:uuid:${clickId}`]) {
      const res = await server.request(`${env()}/events/${encodeURIComponent(ref)}/`);
      expect(res.status, ref).toBe(200);
      expect(res.body.id).toBe(clickId);
    }
  });

  it("answers a text that is not a uuid with PostHog's own 400, and an unknown uuid with its 404", async () => {
    for (const ref of ['not-a-uuid', '12345', `${clickId}0`]) {
      const res = await server.request(`${env()}/events/${ref}/`);
      expect(res.status, ref).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid UUID', code: 'invalid', type: 'validation_error' });
    }
    const unknown = '0198a2b3-0000-7000-8000-000000000000';
    const upper = unknown.toUpperCase();
    const res = await server.request(`${env()}/events/${upper}/`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: `No events exist for event UUID ${upper}`, attr: null });
  });
});

describe('timestamp', () => {
  const setTimezone = async (timezone: string) =>
    expect((await server.request(`${env()}/`, { method: 'PATCH', body: { timezone } })).status).toBe(200);

  beforeAll(async () => {
    await server.ingest([
      { event: 'stamped', distinct_id: 'stamper', timestamp: '2025-09-02T10:00:00.120Z', properties: { n: 1 } },
      { event: 'stamped', distinct_id: 'stamper', timestamp: '2025-09-02T09:00:00Z', properties: { n: 2 } },
    ]);
  });

  it("is Python's isoformat in UTC: +00:00, microseconds only when there are any, whatever the project's timezone", async () => {
    await setTimezone('Asia/Tokyo');
    try {
      const listed = (await server.request(`${env()}/events/?event=stamped`)).body.results;
      const retrieved = (await server.request(`${env()}/events/${listed[0].id}/`)).body;
      expect([...listed.map((e: any) => e.timestamp), retrieved.timestamp]).toEqual([
        '2025-09-02T10:00:00.120000+00:00',
        '2025-09-02T09:00:00+00:00',
        '2025-09-02T10:00:00.120000+00:00',
      ]);
    } finally {
      await setTimezone('UTC');
    }
  });

  it('pages on: next asks for what came before the last timestamp, printed the same way', async () => {
    const first = await server.request(`${env()}/events/?event=stamped&limit=1`);
    const next = new URL(first.body.next);
    const second = await server.request(next.pathname + next.search);
    // The same text the event shows, read back as the same instant.
    expect({ before: next.searchParams.get('before'), following: second.body.results.map((e: any) => e.properties.n) }).toEqual({
      before: '2025-09-02T10:00:00.120000+00:00',
      following: [2],
    });
  });
});
