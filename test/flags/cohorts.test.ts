import { describe, expect, it } from 'vitest';
import {
  createCohortResolver,
  evaluateFlags,
  FlagEvaluationError,
  isCohortMember,
  type FlagDefinitions,
  type MatchEnvironment,
  type PropertyFilter,
  type PropertyGroup,
} from '../../src/flags/engine/index.js';

const env: MatchEnvironment = { timezone: 'UTC', now: new Date('2024-06-15T12:00:00Z') };

const staff: PropertyGroup = {
  type: 'OR',
  values: [
    {
      type: 'AND',
      values: [
        { key: 'email', type: 'person', operator: 'icontains', value: '@hoglet.dev' },
        { key: 'plan', type: 'person', operator: 'exact', value: 'pro' },
      ],
    },
    { type: 'AND', values: [{ key: 'country', type: 'person', operator: 'exact', value: 'GB' }] },
  ],
};

function cohortFlag(filter: Partial<PropertyFilter> & { value: unknown }, key = 'cohort-flag'): FlagDefinitions['flags'][number] {
  return {
    id: 1,
    key,
    active: true,
    filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', ...filter }], rollout_percentage: 100 }] },
  };
}

describe('dynamic cohorts', () => {
  const resolver = () => createCohortResolver({ '10': staff }, [], []);

  it('evaluates OR of AND groups against person properties', () => {
    expect(isCohortMember('10', { email: 'a@hoglet.dev', plan: 'pro' }, env, resolver())).toBe(true);
    expect(isCohortMember('10', { email: 'a@hoglet.dev', plan: 'free' }, env, resolver())).toBe(false);
    expect(isCohortMember('10', { country: 'gb' }, env, resolver())).toBe(true);
    expect(isCohortMember('10', {}, env, resolver())).toBe(false);
  });

  it('inverts negated person filters', () => {
    const group: PropertyGroup = {
      type: 'AND',
      values: [{ type: 'AND', values: [{ key: 'email', type: 'person', operator: 'icontains', value: '@spam', negation: true }] }],
    };
    const r = () => createCohortResolver({ '11': group }, [], []);
    expect(isCohortMember('11', { email: 'bob@spam.io' }, env, r())).toBe(false);
    expect(isCohortMember('11', { email: 'bob@ok.io' }, env, r())).toBe(true);
    // A missing property fails icontains, so its negation matches.
    expect(isCohortMember('11', {}, env, r())).toBe(true);
  });

  it('accepts the stored `{properties: ...}` shape as well as the feed shape', () => {
    const r = createCohortResolver({ '12': { properties: staff } }, [], []);
    expect(isCohortMember('12', { country: 'GB' }, env, r)).toBe(true);
  });

  it('treats a null definition as matching nobody (not as an error)', () => {
    const r = createCohortResolver({ '13': null }, [], []);
    expect(isCohortMember('13', { anything: 1 }, env, r)).toBe(false);
  });

  it('never matches behavioural filters', () => {
    const group: PropertyGroup = { type: 'OR', values: [{ key: '$pageview', type: 'behavioral', value: 'performed_event' }] };
    expect(isCohortMember('14', { $pageview: 'performed_event' }, env, createCohortResolver({ '14': group }, [], []))).toBe(false);
  });
});

describe('cohorts referencing cohorts', () => {
  const gb: PropertyGroup = { type: 'AND', values: [{ key: 'country', type: 'person', value: 'GB' }] };

  it('resolves a nested reference', () => {
    const outer: PropertyGroup = {
      type: 'AND',
      values: [
        { key: 'id', type: 'cohort', value: 1 },
        { key: 'plan', type: 'person', value: 'pro' },
      ],
    };
    const r = () => createCohortResolver({ '1': gb, '2': outer }, [], []);
    expect(isCohortMember('2', { country: 'GB', plan: 'pro' }, env, r())).toBe(true);
    expect(isCohortMember('2', { country: 'FR', plan: 'pro' }, env, r())).toBe(false);
  });

  it('honours negation on a reference inside AND, ignores it inside OR (reference quirk)', () => {
    const notGbAnd: PropertyGroup = { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 1, negation: true }] };
    const notGbOr: PropertyGroup = { type: 'OR', values: [{ key: 'id', type: 'cohort', value: 1, negation: true }] };
    const r = () => createCohortResolver({ '1': gb, '3': notGbAnd, '4': notGbOr }, [], []);
    expect(isCohortMember('3', { country: 'FR' }, env, r())).toBe(true);
    expect(isCohortMember('3', { country: 'GB' }, env, r())).toBe(false);
    expect(isCohortMember('4', { country: 'GB' }, env, r())).toBe(true);
    expect(isCohortMember('4', { country: 'FR' }, env, r())).toBe(false);
  });

  it('uses caller-supplied memberships for static cohorts, also when nested', () => {
    const outer: PropertyGroup = { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 7 }] };
    expect(isCohortMember('5', {}, env, createCohortResolver({ '5': outer }, [7], [7]))).toBe(true);
    expect(isCohortMember('5', {}, env, createCohortResolver({ '5': outer }, [7], [8]))).toBe(false);
  });

  it('throws dependency_cycle for cyclic references and dependency_not_found for missing ones', () => {
    const a: PropertyGroup = { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 21 }] };
    const b: PropertyGroup = { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 20 }] };
    const cyclic = createCohortResolver({ '20': a, '21': b }, [], []);
    expect(() => isCohortMember('20', {}, env, cyclic)).toThrow(FlagEvaluationError);
    expect(() => isCohortMember('20', {}, env, cyclic)).toThrow(expect.objectContaining({ code: 'dependency_cycle' }));
    // Broken even though the OR's first branch already matches: the graph is validated first.
    const orphan: PropertyGroup = {
      type: 'OR',
      values: [
        { key: 'country', type: 'person', value: 'GB' },
        { key: 'id', type: 'cohort', value: 999 },
      ],
    };
    expect(() => isCohortMember('22', { country: 'GB' }, env, createCohortResolver({ '22': orphan }, [], []))).toThrow(
      expect.objectContaining({ code: 'dependency_not_found' }),
    );
  });
});

describe('cohort filters in flags', () => {
  const definitions = (flag: FlagDefinitions['flags'][number], extra: Partial<FlagDefinitions> = {}): FlagDefinitions => ({
    flags: [flag, { id: 2, key: 'always-on', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }],
    cohorts: { '10': staff },
    ...extra,
  });

  it('missing operator and `in` mean member; `not_in` means not a member', () => {
    const gbPerson = { distinct_id: 'u', person_properties: { country: 'GB' } };
    const frPerson = { distinct_id: 'u', person_properties: { country: 'FR' } };
    expect(evaluateFlags(definitions(cohortFlag({ value: 10 })), gbPerson).flags['cohort-flag']!.enabled).toBe(true);
    expect(evaluateFlags(definitions(cohortFlag({ value: '10', operator: 'in' })), frPerson).flags['cohort-flag']!.enabled).toBe(false);
    expect(evaluateFlags(definitions(cohortFlag({ value: 10, operator: 'not_in' })), frPerson).flags['cohort-flag']!.enabled).toBe(true);
    expect(evaluateFlags(definitions(cohortFlag({ value: 10, operator: 'not_in' })), gbPerson).flags['cohort-flag']!.enabled).toBe(false);
  });

  it('other operators on a cohort filter never match', () => {
    const result = evaluateFlags(definitions(cohortFlag({ value: 10, operator: 'exact' })), {
      distinct_id: 'u',
      person_properties: { country: 'GB' },
    });
    expect(result.flags['cohort-flag']!.reason.code).toBe('no_condition_match');
  });

  it('static cohorts use the caller-supplied membership', () => {
    const defs = definitions(cohortFlag({ value: 42 }), { static_cohort_ids: [42] });
    expect(evaluateFlags(defs, { distinct_id: 'u', staticCohortIds: [42] }).flags['cohort-flag']!.enabled).toBe(true);
    expect(evaluateFlags(defs, { distinct_id: 'u', staticCohortIds: new Set(['43']) }).flags['cohort-flag']!.enabled).toBe(false);
    expect(evaluateFlags(defs, { distinct_id: 'u' }).flags['cohort-flag']!.enabled).toBe(false);
  });

  it('a missing cohort fails only that flag and sets errorsWhileComputingFlags', () => {
    const result = evaluateFlags(definitions(cohortFlag({ value: 999 })), { distinct_id: 'u', person_properties: { country: 'GB' } });
    expect(result.errorsWhileComputingFlags).toBe(true);
    expect(result.flags['cohort-flag']).toMatchObject({
      enabled: false,
      value: false,
      variant: null,
      failed: true,
      reason: { code: 'dependency_not_found', condition_index: null },
    });
    expect(result.flags['always-on']).toMatchObject({ enabled: true });
    expect(result.flags['always-on']!.failed).toBeUndefined();
  });

  it('a cohort is only looked at when the rest of the condition matched (cohorts are evaluated last)', () => {
    const flag: FlagDefinitions['flags'][number] = {
      id: 1,
      key: 'cohort-flag',
      active: true,
      filters: {
        groups: [
          {
            properties: [
              { key: 'id', type: 'cohort', value: 999 },
              { key: 'plan', type: 'person', value: 'pro' },
            ],
          },
        ],
      },
    };
    const result = evaluateFlags(definitions(flag), { distinct_id: 'u', person_properties: { plan: 'free' } });
    expect(result.flags['cohort-flag']!.reason.code).toBe('no_condition_match');
    expect(result.errorsWhileComputingFlags).toBe(false);
  });
});
