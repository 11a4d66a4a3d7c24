/**
 * PostHog's cohort filter models (src/cohorts/core/filter-models.ts): pydantic's errors for extra
 * keys, dates it cannot read and person_metadata columns it does not know, in pydantic's order,
 * and the detail CohortSerializer makes of them.
 */
import { describe, expect, it } from 'vitest';
import { cohortErrorMessage, cohortFilterErrors, isFilterDate } from '../../src/cohorts/core/filter-models.js';
import { PERFORMED_PAGEVIEW } from '../helpers/cohort-filters.js';

const URL = 'https://errors.pydantic.dev/2.10/v/';
const inAnd = (...values: unknown[]) => ({ properties: { type: 'OR', values: [{ type: 'AND', values }] } });
const detail = (filters: Record<string, unknown>) => cohortErrorMessage(cohortFilterErrors(filters));
const person = (key: string, operator: string, value: unknown) => ({ key, type: 'person', operator, value });
const LEAF = ['properties', 'values', 0, 'AND', 'values', 0];

describe('cohort filter models', () => {
  it('accepts what PostHog stores: bytecode fields, negation, behavioral event filters, created_at', () => {
    const stored = inAnd(
      { ...person('plan', 'exact', ['pro']), negation: false, bytecode: ['_H', 1], bytecode_error: null, conditionHash: 'abc' },
      { key: 'id', type: 'cohort', value: 3, negation: true, conditionHash: null },
      {
        ...PERFORMED_PAGEVIEW,
        negation: false,
        explicit_datetime: '-30d',
        event_filters: [
          { type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' },
          { type: 'hogql', key: 'properties.$os = "Mac"' },
        ],
      },
      { key: 'created_at', type: 'person_metadata', operator: 'is_date_before', value: '-7d' },
      { key: 'email', type: 'person', operator: 'is_set' },
    );
    expect(cohortFilterErrors(stored)).toEqual([]);
    expect(detail(stored)).toBeUndefined();
  });

  it("lists extra keys as pydantic does: a model's after its fields' errors, across members in document order", () => {
    const filters = {
      properties: {
        type: 'OR',
        values: [
          { type: 'AND', values: [{ ...person('plan', 'exact', 'pro'), foo: 1 }], label: 'x' },
          { key: 'id', type: 'cohort' },
        ],
        id: 7,
      },
      groups: [],
    };
    expect(cohortFilterErrors(filters).map(({ type, loc, input }) => ({ type, loc, input }))).toEqual([
      { type: 'extra_forbidden', loc: [...LEAF, 'person', 'foo'], input: 1 },
      { type: 'extra_forbidden', loc: ['properties', 'values', 0, 'AND', 'label'], input: 'x' },
      { type: 'missing', loc: ['properties', 'values', 1, 'cohort', 'value'], input: { key: 'id', type: 'cohort' } },
      { type: 'extra_forbidden', loc: ['properties', 'id'], input: 7 },
      { type: 'extra_forbidden', loc: ['groups'], input: [] },
    ]);
    // A missing key names itself (_cohort_error_message), wherever it is in the list.
    expect(detail(filters)).toBe('Missing required keys for cohort filter: value');
  });

  it("answers pydantic's list for extra keys, a top-level one's location a one-item tuple", () => {
    expect(detail({ ...inAnd(person('plan', 'exact', 'pro')), groups: [] })).toBe(
      `[{'type': 'extra_forbidden', 'loc': ('groups',), 'msg': 'Extra inputs are not permitted', 'input': [], 'url': '${URL}extra_forbidden'}]`,
    );
    expect(detail(inAnd({ ...person('plan', 'exact', 'pro'), label: "it's" }))).toBe(
      `[{'type': 'extra_forbidden', 'loc': ('properties', 'values', 0, 'AND', 'values', 0, 'person', 'label'), 'msg': 'Extra inputs are not permitted', 'input': "it's", 'url': '${URL}extra_forbidden'}]`,
    );
  });

  it("skips a model's after-validators when a key is extra, as pydantic does", () => {
    // No operator, but the extra key fails the model first: no "Missing required keys".
    const errors = cohortFilterErrors(inAnd({ key: 'plan', type: 'person', value: 'pro', foo: true }));
    expect(errors.map((e) => e.type)).toEqual(['extra_forbidden']);
    // A missing field is reported alongside, and worded.
    expect(detail(inAnd({ type: 'person', value: 'pro', foo: true }))).toBe('Missing required keys for person filter: key');
  });

  it('checks the literals: a cohort filter keys on id, the top group is AND or OR, event filters by their type', () => {
    expect(detail(inAnd({ key: 'cohort_id', type: 'cohort', value: 1 }))).toBe(
      `[{'type': 'literal_error', 'loc': ('properties', 'values', 0, 'AND', 'values', 0, 'cohort', 'key'), 'msg': "Input should be 'id'", 'input': 'cohort_id', 'ctx': {'expected': "'id'"}, 'url': '${URL}literal_error'}]`,
    );
    expect(detail({ properties: { type: 'XOR', values: [] } })).toBe(
      `[{'type': 'literal_error', 'loc': ('properties', 'type'), 'msg': "Input should be 'AND' or 'OR'", 'input': 'XOR', 'ctx': {'expected': "'AND' or 'OR'"}, 'url': '${URL}literal_error'}]`,
    );
    const eventFilter = { type: 'event', key: '$browser', value: 'Chrome', foo: 1 };
    const at = "'properties', 'values', 0, 'AND', 'values', 0, 'behavioral', 'event_filters', 0";
    expect(detail(inAnd({ ...PERFORMED_PAGEVIEW, event_filters: [eventFilter] }))).toBe(
      `[{'type': 'extra_forbidden', 'loc': (${at}, 'EventPropFilter', 'foo'), 'msg': 'Extra inputs are not permitted', 'input': 1, 'url': '${URL}extra_forbidden'}, ` +
        `{'type': 'literal_error', 'loc': (${at}, 'HogQLFilter', 'type'), 'msg': "Input should be 'hogql'", 'input': 'event', 'ctx': {'expected': "'hogql'"}, 'url': '${URL}literal_error'}, ` +
        `{'type': 'extra_forbidden', 'loc': (${at}, 'HogQLFilter', 'foo'), 'msg': 'Extra inputs are not permitted', 'input': 1, 'url': '${URL}extra_forbidden'}]`,
    );
    // A missing field of an event filter is worded as the behavioral filter's.
    expect(detail(inAnd({ ...PERFORMED_PAGEVIEW, event_filters: [{ type: 'event', value: 'x' }] }))).toBe(
      'Missing required keys for behavioral filter: key',
    );
  });

  it('reads dates as the flag and cohort evaluation does', () => {
    for (const text of ['-7d', '30d', '-24h', '-2w', '-3m', '-1y', '2024-01-15', '2024-1-5', '2024-01-15 10:30', '2024-01-15T10:30:00Z']) {
      expect(isFilterDate(text), text).toBe(true);
    }
    for (const value of ['yesterday', '2024-13-01', '2024-02-30', '', ' 2024-01-15', '10000d', '-7s', 20240115, ['2024-01-15'], true]) {
      expect(isFilterDate(value), JSON.stringify(value)).toBe(false);
    }
  });

  it("refuses an is_date_after / is_date_before value evaluation cannot read, with PostHog's value error", () => {
    const filter = person('signup', 'is_date_after', 'last week');
    const text =
      "Invalid date value 'last week' for operator 'is_date_after'. Expected a relative date (e.g., '-7d', '30d') or an ISO 8601 date (e.g., '2024-01-15').";
    expect(detail(inAnd(filter))).toBe(
      `[{'type': 'value_error', 'loc': ('properties', 'values', 0, 'AND', 'values', 0, 'person'), 'msg': "Value error, ${text}", 'input': {'key': 'signup', 'type': 'person', 'operator': 'is_date_after', 'value': 'last week'}, 'ctx': {'error': ValueError("${text}")}, 'url': '${URL}value_error'}]`,
    );
    // str(value) for what is no text; other operators' values are not dates.
    expect(cohortFilterErrors(inAnd(person('signup', 'is_date_before', ['2024-01-15'])))[0]!.msg).toContain(
      "Invalid date value '['2024-01-15']' for operator 'is_date_before'",
    );
    expect(cohortFilterErrors(inAnd(person('signup', 'is_date_exact', 'soon'), person('signup', 'exact', 'soon')))).toEqual([]);
    // Missing keys are checked first; the message then names them.
    expect(detail(inAnd({ key: 'created_at', type: 'person_metadata', value: null, operator: 'is_date_after' }))).toBe(
      'Missing required keys for person_metadata filter: value',
    );
  });

  it('refuses a person_metadata key outside PERSON_METADATA_FIELDS, after the date check', () => {
    const filter = { key: 'last_seen_at', type: 'person_metadata', operator: 'is_set', value: 'is_set' };
    const text = "Unsupported person_metadata key 'last_seen_at'. Allowed keys: created_at.";
    expect(detail(inAnd(filter))).toBe(
      `[{'type': 'value_error', 'loc': ('properties', 'values', 0, 'AND', 'values', 0, 'person_metadata'), 'msg': "Value error, ${text}", 'input': {'key': 'last_seen_at', 'type': 'person_metadata', 'operator': 'is_set', 'value': 'is_set'}, 'ctx': {'error': ValueError("${text}")}, 'url': '${URL}value_error'}]`,
    );
    const both = cohortFilterErrors(inAnd({ key: 'email', type: 'person_metadata', operator: 'is_date_after', value: 'x' }));
    expect(both.map((e) => e.msg)).toEqual([
      "Value error, Invalid date value 'x' for operator 'is_date_after'. Expected a relative date (e.g., '-7d', '30d') or an ISO 8601 date (e.g., '2024-01-15').",
    ]);
    // A missing key there is no person filter's: pydantic's list, not the worded message.
    expect(detail(inAnd({ type: 'person_metadata', operator: 'is_set' }))).toContain("'type': 'missing', 'loc': (");
  });
});
