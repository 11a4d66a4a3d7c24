/**
 * Cohort filters refused as PostHog's pydantic models refuse them (extra="forbid"): keys no model
 * has, dates the is_date_* operators cannot read, person_metadata columns PostHog does not allow;
 * while what the web app and PostHog's own stored filters hold goes through, also read back and
 * sent again.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { cohortsPath, personFilter } from '../flags/flag-helpers.js';
import { PERFORMED_PAGEVIEW } from '../helpers/cohort-filters.js';

const server = useTestServer();

const URL = 'https://errors.pydantic.dev/2.10/v/';
const propertiesOf = (...values: unknown[]) => ({ properties: { type: 'OR', values: [{ type: 'AND', values }] } });
const refusal = (detail: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr: 'filters' });
const post = (filters: unknown) => server.request(cohortsPath(server), { method: 'POST', body: { name: 'models', filters } });
const patch = (id: number, filters: unknown) => server.request(cohortsPath(server, `${id}/`), { method: 'PATCH', body: { filters } });
const DATE_HINT = "Expected a relative date (e.g., '-7d', '30d') or an ISO 8601 date (e.g., '2024-01-15').";

async function created(filters: unknown) {
  const res = await post(filters);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('extra keys in cohort filters (extra="forbid")', () => {
  it('refuses a key no filter model has, on a leaf, with pydantic’s list', async () => {
    const res = await post(propertiesOf({ ...personFilter('plan', 'pro'), label: 'Plan' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      refusal(
        `[{'type': 'extra_forbidden', 'loc': ('properties', 'values', 0, 'AND', 'values', 0, 'person', 'label'), 'msg': 'Extra inputs are not permitted', 'input': 'Plan', 'url': '${URL}extra_forbidden'}]`,
      ),
    );
  });

  it('refuses extra keys on a group and beside properties on PATCH, and keeps the stored filters', async () => {
    const cohort = await created(propertiesOf(personFilter('plan', 'pro')));
    const filters = {
      properties: { type: 'OR', values: [{ type: 'AND', values: [personFilter('plan', 'pro')], name: 'g' }] },
      groups: [],
    };
    const res = await patch(cohort.id, filters);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      refusal(
        `[{'type': 'extra_forbidden', 'loc': ('properties', 'values', 0, 'AND', 'name'), 'msg': 'Extra inputs are not permitted', 'input': 'g', 'url': '${URL}extra_forbidden'}, ` +
          `{'type': 'extra_forbidden', 'loc': ('groups',), 'msg': 'Extra inputs are not permitted', 'input': [], 'url': '${URL}extra_forbidden'}]`,
      ),
    );
    expect((await server.request(cohortsPath(server, `${cohort.id}/`))).body.filters).toEqual(propertiesOf(personFilter('plan', 'pro')));
  });

  it('still names a missing key before listing extras, as _cohort_error_message picks it', async () => {
    const res = await post(propertiesOf({ ...personFilter('plan', 'pro'), label: 'Plan' }, { key: 'id', type: 'cohort' }));
    expect(res.body).toEqual(refusal('Missing required keys for cohort filter: value'));
  });
});

describe('dates of is_date_after / is_date_before', () => {
  it('refuses a date evaluation cannot read, for person and person_metadata filters', async () => {
    const res = await post(propertiesOf(personFilter('signup', 'next tuesday', 'is_date_after')));
    expect(res.status).toBe(400);
    const text = `Invalid date value 'next tuesday' for operator 'is_date_after'. ${DATE_HINT}`;
    expect(res.body).toEqual(
      refusal(
        `[{'type': 'value_error', 'loc': ('properties', 'values', 0, 'AND', 'values', 0, 'person'), 'msg': "Value error, ${text}", 'input': {'key': 'signup', 'value': 'next tuesday', 'operator': 'is_date_after', 'type': 'person'}, 'ctx': {'error': ValueError("${text}")}, 'url': '${URL}value_error'}]`,
      ),
    );
    const metadata = await post(
      propertiesOf({ key: 'created_at', type: 'person_metadata', operator: 'is_date_before', value: '2024-02-30' }),
    );
    expect(metadata.status).toBe(400);
    expect(metadata.body.detail).toContain(`Invalid date value '2024-02-30' for operator 'is_date_before'. ${DATE_HINT}`);
  });

  it('accepts relative and ISO dates', async () => {
    const dates = ['-7d', '30d', '-24h', '-1y', '2024-01-15', '2024-01-15T10:30:00Z', '2024-01-15 10:30'];
    const filters = propertiesOf(...dates.map((date) => personFilter('signup', date, 'is_date_before')));
    expect((await created(filters)).filters).toEqual(filters);
  });
});

describe('person_metadata keys', () => {
  it('refuses a column PostHog does not allow, and takes created_at', async () => {
    const res = await post(propertiesOf({ key: 'last_seen_at', type: 'person_metadata', operator: 'is_set', value: 'is_set' }));
    expect(res.status).toBe(400);
    const text = "Unsupported person_metadata key 'last_seen_at'. Allowed keys: created_at.";
    expect(res.body).toEqual(
      refusal(
        `[{'type': 'value_error', 'loc': ('properties', 'values', 0, 'AND', 'values', 0, 'person_metadata'), 'msg': "Value error, ${text}", 'input': {'key': 'last_seen_at', 'type': 'person_metadata', 'operator': 'is_set', 'value': 'is_set'}, 'ctx': {'error': ValueError("${text}")}, 'url': '${URL}value_error'}]`,
      ),
    );
    await created(propertiesOf({ key: 'created_at', type: 'person_metadata', operator: 'is_set', value: 'is_set' }));
  });

  it('asks a person_metadata filter for its value and operator, as a person filter', async () => {
    const res = await post(propertiesOf({ key: 'created_at', type: 'person_metadata', value: '-7d' }));
    expect(res.body).toEqual(refusal('Missing required keys for person_metadata filter: operator'));
  });
});

describe('filters that must still go through', () => {
  it("takes the web editor's filters and PostHog's stored ones, and takes them back as read", async () => {
    // The editor writes person rows as {key, operator, value, type} and keeps other filters as stored.
    const editor = propertiesOf(
      personFilter('plan', ['pro', 'team']),
      personFilter('email', 'is_set', 'is_set'),
      personFilter('age', 30, 'gt'),
    );
    // PostHog stores bytecode fields, negation defaults and behavioral event filters.
    const posthog = {
      properties: {
        type: 'OR',
        values: [
          {
            type: 'AND',
            values: [
              { ...personFilter('plan', 'pro'), negation: false, bytecode: ['_H', 1, 32, 'pro'], conditionHash: '0123456789abcdef' },
              { key: 'created_at', type: 'person_metadata', operator: 'is_date_after', value: '-30d', negation: true },
              {
                ...PERFORMED_PAGEVIEW,
                negation: false,
                bytecode_error: 'Unsupported behavioral filter for realtime bytecode',
                event_filters: [{ type: 'event', key: '$browser', value: ['Chrome'], operator: 'exact' }],
              },
            ],
          },
          { type: 'OR', values: [{ type: 'AND', values: [personFilter('country', 'DE')] }] },
        ],
      },
    };
    for (const filters of [editor, posthog]) {
      const cohort = await created(filters);
      const read = (await server.request(cohortsPath(server, `${cohort.id}/`))).body;
      const again = await patch(cohort.id, read.filters);
      expect(again.status, again.text).toBe(200);
      expect(again.body.filters).toEqual(filters);
    }
  });
});

describe('deeply nested filters', () => {
  it('are a 400 past 100 groups deep, before any check walks them', async () => {
    // Within the 1,000 levels the JSON parser takes (a group is two: its object and its values).
    const depth = 450;
    const leaf = JSON.stringify({ type: 'person', key: 'plan', operator: 'exact', value: 'pro' });
    const properties = '{"type":"AND","values":['.repeat(depth) + leaf + ']}'.repeat(depth);
    const res = await server.request(cohortsPath(server), {
      method: 'POST',
      rawBody: `{"name":"Deep","filters":{"properties":${properties}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'filters', detail: expect.stringContaining('100 deep') });
  });
});
