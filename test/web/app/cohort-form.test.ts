/**
 * The cohort editor's form (web/src/pages/cohorts/cohort-form.ts): filters the form cannot edit
 * (behavioral, cohort, negated, nested) come back in their places whatever is done to the rows
 * around them, untouched rows come back exactly as stored, and a group left with nothing in it is
 * refused rather than saved as "everyone".
 */
import { describe, expect, it } from 'vitest';
import type { Cohort, CohortGroup } from '../../../web/src/api/cohorts.js';
import { PERFORMED_PAGEVIEW } from '../../helpers/cohort-filters.js';
import { checkGroups, describeKept, filtersFromForm, formFromCohort, holdsBehavioral } from '../../../web/src/pages/cohorts/cohort-form.js';

const plan = { key: 'plan', type: 'person', operator: 'exact', value: ['pro'] };
const visited = PERFORMED_PAGEVIEW;
const notUs = { key: 'country', type: 'person', operator: 'exact', value: 'US', negation: true };
const inFive = { key: 'id', type: 'cohort', value: 5 };
const age = { key: 'age', type: 'person', operator: 'gt', value: 30 };
const nested: CohortGroup = {
  type: 'OR',
  values: [
    { key: 'email', type: 'person', operator: 'icontains', value: '@acme.com' },
    {
      key: 'signup',
      type: 'behavioral',
      value: 'performed_event_multiple',
      event_type: 'events',
      operator: 'gte',
      operator_value: 3,
    } as never,
  ],
};

const cohort = (properties: CohortGroup): Cohort =>
  ({ id: 1, name: 'Mixed', description: '', is_static: false, filters: { properties } }) as Cohort;

const stored: CohortGroup = {
  type: 'OR',
  values: [
    { type: 'AND', values: [plan, visited, notUs, age, inFive] },
    { type: 'AND', values: [nested] },
  ],
};

describe('the cohort form', () => {
  it('shows person filters as rows and keeps the rest, each where it stood', () => {
    const form = formFromCohort(cohort(stored));
    expect(form.match).toBe('OR');
    expect(form.groups).toHaveLength(2);
    expect(form.groups[0]!.properties.map((row) => row.key)).toEqual(['plan', 'age']);
    expect(form.groups[0]!.kept).toEqual([
      { filter: visited, at: 1 },
      { filter: notUs, at: 1 },
      { filter: inFive, at: 2 },
    ]);
    expect(form.groups[1]!.properties).toEqual([]);
    expect(form.groups[1]!.kept).toEqual([{ filter: nested, at: 0 }]);
    // Saved untouched, the filters are what was stored, to the value's form.
    expect(filtersFromForm(form)).toEqual({ properties: stored });
  });

  it('writes an edited row anew and leaves the kept filters as they were', () => {
    const form = formFromCohort(cohort(stored));
    form.groups[0]!.properties[1]!.value = '40';
    const values = filtersFromForm(form).properties.values[0] as CohortGroup;
    expect(values.values).toEqual([plan, visited, notUs, { key: 'age', type: 'person', operator: 'gt', value: 40 }, inFive]);
  });

  it('keeps every unshown filter when rows are removed or added', () => {
    const form = formFromCohort(cohort(stored));
    form.groups[0]!.properties = [];
    expect((filtersFromForm(form).properties.values[0] as CohortGroup).values).toEqual([visited, notUs, inFive]);
    form.groups[1]!.properties.push({ type: 'person', key: 'plan', operator: 'exact', value: 'free' });
    expect((filtersFromForm(form).properties.values[1] as CohortGroup).values).toEqual([
      nested,
      { key: 'plan', type: 'person', operator: 'exact', value: 'free' },
    ]);
  });

  it('refuses a group with nothing left in it', () => {
    const form = formFromCohort(cohort(stored));
    expect(checkGroups(form)).toBeUndefined();
    // A group of kept filters only is a real group.
    form.groups[0]!.properties = [];
    expect(checkGroups(form)).toBeUndefined();
    form.groups[0]!.kept = [];
    expect(checkGroups(form)).toBe('Group 1 has no filters: add one, or remove the group.');
    form.groups = [form.groups[0]!];
    expect(checkGroups(form)).toBe('Add a filter: a cohort with none would hold everyone.');
  });

  it('says in words what it keeps', () => {
    expect(describeKept(visited as never)).toBe('Performed event $pageview in the last 30 days');
    expect(describeKept(notUs)).toBe('Not: Person property country exact "US"');
    expect(describeKept(inFive)).toBe('Cohort #5');
    // A cohort reference as membership judges it: not_in excludes, negation flips it but right under an OR group.
    expect(describeKept({ ...inFive, negation: true })).toBe('Not in cohort #5');
    expect(describeKept({ ...inFive, operator: 'not_in' })).toBe('Not in cohort #5');
    expect(describeKept({ ...inFive, operator: 'not_in', negation: true })).toBe('Cohort #5');
    expect(describeKept({ ...inFive, negation: true }, true)).toBe('Cohort #5');
    expect(describeKept({ type: 'AND', values: [{ ...inFive, negation: true }] }, true)).toBe('All of (Not in cohort #5)');
    expect(describeKept({ type: 'OR', values: [{ ...inFive, negation: true }] })).toBe('Any of (Cohort #5)');
    expect(describeKept({ ...inFive, operator: 'exact' })).toBe('Cohort #5 with operator exact, which matches no one');
    // With the cohorts' names at hand, a reference says which cohort it is.
    const nameOf = (id: number) => (id === 5 ? 'Pro users' : undefined);
    expect(describeKept({ type: 'OR', values: [inFive, { ...inFive, value: 6 }] }, false, nameOf)).toBe(
      'Any of (Cohort "Pro users" (#5); Cohort #6)',
    );
    expect(describeKept(nested)).toBe('Any of (Person property email icontains "@acme.com"; Performed event signup at least 3 times)');
    expect(describeKept({ key: 'x', type: 'static-cohort' })).toBe('{"key":"x","type":"static-cohort"}');
    const firstSeen = { key: 'created_at', type: 'person_metadata', operator: 'is_date_after', value: '-7d' };
    expect(describeKept(firstSeen as never)).toBe('First seen is_date_after "-7d"');
    expect(describeKept({ ...firstSeen, negation: true } as never)).toBe('Not: First seen is_date_after "-7d"');
    // Behavioral filters, alone or nested, are the ones membership never matches.
    expect([visited, notUs, inFive, nested].map((f) => holdsBehavioral(f as never))).toEqual([true, false, false, true]);
  });
});
