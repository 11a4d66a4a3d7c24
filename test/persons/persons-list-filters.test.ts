/**
 * The persons list filters by `properties` (person property filters, PostHog's operators with
 * HogQL's answers for missing properties) and `email`, never silently returning everyone: a
 * script deleting what the list returns must get only the persons its filter selects.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { listPersons, personsPath, seedPerson, selected } from './person-fixtures.js';

const server = useTestServer();
beforeAll(async () => {
  await seedPerson(server, {
    distinctIds: ['ada'],
    properties: { email: 'ada@example.com', name: 'Ada', age: 36, plan: 'pro', beta: true, joined: '2025-02-01' },
  });
  await seedPerson(server, {
    distinctIds: ['bob'],
    properties: { email: 'bob@example.org', name: 'Bob', age: '25', plan: 'free', beta: false, joined: '2024-12-31' },
  });
  await seedPerson(server, { distinctIds: ['cy'], properties: { name: 'Cy', plan: null } });
  await seedPerson(server, { distinctIds: ['dee'], properties: { email: 'dee@EXAMPLE.com', age: 41, plan: 'pro' } });
});

const person = (key: string, operator: string | undefined, value?: unknown) => ({
  type: 'person',
  key,
  ...(operator ? { operator } : {}),
  ...(value !== undefined ? { value } : {}),
});

describe('persons list: properties', () => {
  it('exact (the default operator), with one value or a list', async () => {
    expect(await selected(server, [person('plan', 'exact', 'pro')])).toEqual(['ada', 'dee']);
    expect(await selected(server, [{ key: 'plan', value: 'pro' }])).toEqual(['ada', 'dee']);
    expect(await selected(server, [person('plan', 'exact', ['pro', 'free'])])).toEqual(['ada', 'bob', 'dee']);
    expect(await selected(server, [person('plan', 'exact', ['free'])])).toEqual(['bob']);
    // Exact is case-sensitive text equality; booleans compare as "true"/"false".
    expect(await selected(server, [person('email', 'exact', 'DEE@example.com')])).toEqual([]);
    expect(await selected(server, [person('beta', 'exact', true)])).toEqual(['ada']);
    expect(await selected(server, [person('beta', 'exact', 'false')])).toEqual(['bob']);
    expect(await selected(server, [person('age', 'exact', 36)])).toEqual(['ada']);
  });

  it('negative operators match persons without the property (null or missing)', async () => {
    expect(await selected(server, [person('plan', 'is_not', 'pro')])).toEqual(['bob', 'cy']);
    expect(await selected(server, [person('plan', 'is_not', ['pro', 'free'])])).toEqual(['cy']);
    expect(await selected(server, [person('email', 'not_icontains', 'example.com')])).toEqual(['bob', 'cy']);
    expect(await selected(server, [person('email', 'not_regex', '^[ab]')])).toEqual(['cy', 'dee']);
  });

  it('icontains (case-insensitive) and regex', async () => {
    expect(await selected(server, [person('email', 'icontains', 'example.com')])).toEqual(['ada', 'dee']);
    expect(await selected(server, [person('email', 'icontains', ['.org', 'ada@'])])).toEqual(['ada', 'bob']);
    expect(await selected(server, [person('email', 'regex', '^[ab]')])).toEqual(['ada', 'bob']);
    expect(await selected(server, [person('email', 'regex', '(?i)example\\.COM$')])).toEqual(['ada', 'dee']);
    expect(await selected(server, [person('name', 'regex', ['^A', '^C'])])).toEqual(['ada', 'cy']);
  });

  it('numeric comparisons read numbers and numeric text; is_set / is_not_set', async () => {
    expect(await selected(server, [person('age', 'gt', 30)])).toEqual(['ada', 'dee']);
    expect(await selected(server, [person('age', 'lt', '30')])).toEqual(['bob']);
    expect(await selected(server, [person('age', 'gte', 41)])).toEqual(['dee']);
    expect(await selected(server, [person('age', 'between', [30, 40])])).toEqual(['ada']);
    expect(await selected(server, [person('age', 'not_between', [30, 40])])).toEqual(['bob', 'dee']);
    expect(await selected(server, [person('email', 'is_set', 'is_set')])).toEqual(['ada', 'bob', 'dee']);
    expect(await selected(server, [person('plan', 'is_not_set', 'is_not_set')])).toEqual(['cy']);
    expect(await selected(server, [person('plan', 'in', ['free', 'pro'])])).toEqual(['ada', 'bob', 'dee']);
    expect(await selected(server, [person('plan', 'not_in', ['free', 'pro'])])).toEqual(['cy']);
  });

  it('compares non-numeric values as text (the date operators compare the value as given)', async () => {
    expect(await selected(server, [person('joined', 'is_date_after', '2025-01-01')])).toEqual(['ada']);
    expect(await selected(server, [person('joined', 'lt', '2025-01-01')])).toEqual(['bob']);
    expect(await selected(server, [person('joined', 'is_date_exact', '2024-12-31')])).toEqual(['bob']);
  });

  it('ANDs the filters, with each other and with search, email and distinct_id', async () => {
    expect(await selected(server, [person('plan', 'exact', 'pro'), person('age', 'lt', 40)])).toEqual(['ada']);
    expect(await selected(server, [person('plan', 'exact', 'pro')], { search: 'dee@' })).toEqual(['dee']);
    expect(await selected(server, [person('plan', 'exact', 'pro')], { distinct_id: 'bob' })).toEqual([]);
    expect(await selected(server, [], { email: 'ada@example.com' })).toEqual(['ada']);
    expect(await selected(server, [], { email: 'ADA@example.com' })).toEqual([]);
  });

  it('counts and pages the matches, regex filters included', async () => {
    const first = await listPersons(server, { properties: JSON.stringify([person('email', 'regex', '(?i)example')]), limit: '2' });
    expect(first.count).toBe(3);
    expect(first.results).toHaveLength(2);
    expect(first.next).toContain('offset=2');
    const second = await listPersons(server, {
      properties: JSON.stringify([person('email', 'regex', '(?i)example')]),
      limit: '2',
      offset: '2',
    });
    expect(second.results).toHaveLength(1);
    expect(second.next).toBeNull();
  });

  it('filters by static cohort membership, in or out', async () => {
    const cohorts = `/api/projects/${server.bootstrap.team.id}/cohorts/`;
    const created = await server.request(cohorts, {
      method: 'POST',
      body: { name: 'First', is_static: true, distinct_ids: ['ada', 'cy'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(await selected(server, [{ type: 'cohort', key: 'id', value: created.body.id }])).toEqual(['ada', 'cy']);
    expect(await selected(server, [{ type: 'cohort', key: 'id', value: created.body.id, operator: 'not_in' }])).toEqual(['bob', 'dee']);
    const dynamic = await server.request(cohorts, {
      method: 'POST',
      body: {
        name: 'Pros',
        filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] } },
      },
    });
    expect(dynamic.status, dynamic.text).toBe(201);
    const refused = await server.request(
      personsPath(server, `?properties=${encodeURIComponent(JSON.stringify([{ type: 'cohort', key: 'id', value: dynamic.body.id }]))}`),
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: 'validation_error', attr: 'properties' });
  });
});

describe('persons list: unreadable filters are refused, never ignored', () => {
  const get = (properties: string) => server.request(personsPath(server, `?properties=${encodeURIComponent(properties)}`));

  it("answers malformed JSON with PostHog's 400", async () => {
    const res = await get('not json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Properties are unparsable!', attr: null });
  });

  it('answers filters it cannot apply with a 400', async () => {
    for (const properties of [
      '{"key": "plan", "value": "pro"}',
      '["plan"]',
      '[{"value": "pro"}]',
      '[{"key": "$browser", "value": "Chrome", "type": "event"}]',
      '[{"key": "plan", "value": "pro", "operator": "sounds_like"}]',
      '[{"key": "email", "value": "(", "operator": "regex"}]',
      // ClickHouse's match is RE2: no look-around, no back-references.
      '[{"key": "email", "value": "^(?=a)ada", "operator": "regex"}]',
      '[{"key": "email", "value": "^(a)\\\\1", "operator": "not_regex"}]',
      '[{"key": "age", "value": [40, 30], "operator": "between"}]',
      '[{"key": "plan", "value": "pro", "operator": "in"}]',
    ]) {
      const res = await get(properties);
      expect(res.status, properties).toBe(400);
      expect(res.body.type, properties).toBe('validation_error');
    }
    expect((await get('[{"key": "$browser", "value": "Chrome", "type": "event"}]')).body.detail).toBe(
      "The 'event' property filter does not work in 'person' scope",
    );
  });
});
