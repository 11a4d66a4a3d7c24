/**
 * Evaluation runs a flag's conditions straight to its result (condition-results.ts). Here it is
 * compared with the reference steps, flag-matching.ts matchFlag then toFlagEvaluation, over
 * generated definition sets (person, group, cohort and flag filters of every operator; rollouts,
 * variants and overrides, group aggregation, device bucketing, experience continuity, early exit,
 * enrollment, holdouts) and generated requests, flag by flag, in evaluation order. The reference
 * runs on definitions compiled separately, so the two share no kept result.
 */
import { describe, expect, it } from 'vitest';
import {
  compileDefinitions,
  createEvaluationState,
  evaluateFlags,
  failedFlagEvaluation,
  FlagEvaluationError,
  matchFlag,
  toFlagEvaluation,
  type CompiledDefinitions,
  type EvaluationContext,
  type FlagCondition,
  type FlagDefinition,
  type FlagDefinitions,
  type FlagEvaluation,
  type PropertyFilter,
} from '../../src/flags/engine/index.js';
import type { CompiledFlag } from '../../src/flags/engine/compiled-definitions.js';
import type { EvaluationState } from '../../src/flags/engine/evaluation-state.js';
import { seededRandom } from '../helpers/seeded-random.js';

type Random = () => number;
const pick = <T>(next: Random, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const chance = (next: Random, p: number) => next() < p;

const KEYS = ['plan', 'email', 'age', 'version', 'seen', '$feature_enrollment/f0', '$feature_enrollment/f1'];
const FILTERS: ReadonlyArray<Omit<PropertyFilter, 'key' | 'type'>> = [
  { operator: 'exact', value: 'pro' },
  { operator: 'exact', value: ['pro', 'team'] },
  { value: 'PRO' },
  { operator: 'exact', value: 'true' },
  { operator: 'is_not', value: 'free' },
  { operator: 'is_set', value: 'is_set' },
  { operator: 'is_not_set', value: 'is_not_set' },
  { operator: 'icontains', value: 'example.com' },
  { operator: 'not_icontains', value: 'EXAMPLE' },
  { operator: 'icontains_multi', value: ['pro', '@'] },
  { operator: 'regex', value: '^p' },
  { operator: 'not_regex', value: '(' },
  { operator: 'starts_with', value: 'Pr' },
  { operator: 'gt', value: '30' },
  { operator: 'lte', value: 45 },
  { operator: 'gt', value: 'abc' },
  { operator: 'between', value: [20, 40] },
  { operator: 'semver_gte', value: '1.2.0' },
  { operator: 'semver_caret', value: '1.2.0' },
  { operator: 'is_date_after', value: '-30d' },
  { operator: 'exact', value: null },
  { operator: 'no_such_operator', value: 'x' },
];
const PERSON_VALUES: Record<string, unknown[]> = {
  plan: ['pro', 'PRO', 'team', 'free', true, null],
  email: ['a@example.com', 'B@EXAMPLE.COM', 'nobody', 5],
  age: [18, 30, 31, '42', 45.5, 'old'],
  version: ['1.2.3', '1.1.9', '2.0.0', 'v1.3.0', 'x'],
  seen: ['2024-06-10T00:00:00Z', '2023-01-01', 1718000000],
  '$feature_enrollment/f0': [true, false, 'true', 'false'],
  '$feature_enrollment/f1': [true, 'true', false],
};

function propertyFilter(next: Random, earlierKeys: string[]): PropertyFilter {
  const roll = next();
  if (roll < 0.12)
    return { key: 'id', type: 'cohort', value: pick(next, [1, 2, 3, 4, 99]), ...(chance(next, 0.3) ? { operator: 'not_in' } : {}) };
  if (roll < 0.2 && earlierKeys.length > 0)
    return {
      key: pick(next, earlierKeys),
      type: 'flag',
      operator: 'flag_evaluates_to',
      value: pick(next, [true, false, 'control', 'test']),
    };
  if (roll < 0.35)
    return {
      key: pick(next, ['plan', 'size']),
      type: 'group',
      ...(chance(next, 0.7) ? { group_type_index: pick(next, [0, 1]) } : {}),
      ...pick(next, FILTERS),
    };
  if (roll < 0.37) return { key: 'plan', type: 'event', operator: 'exact', value: 'pro' };
  return { key: pick(next, KEYS), type: pick(next, ['person', 'person', 'person_metadata', undefined]), ...pick(next, FILTERS) };
}

function flagCondition(next: Random, earlierKeys: string[]): FlagCondition {
  const properties = Array.from({ length: Math.floor(next() * 3) }, () => propertyFilter(next, earlierKeys));
  const condition: FlagCondition = { properties, rollout_percentage: pick(next, [null, 0, 10, 50, 90, 100, 100]) };
  if (chance(next, 0.2)) condition.variant = pick(next, ['control', 'test', 'nope']);
  if (chance(next, 0.15)) condition.aggregation_group_type_index = pick(next, [null, 0, 1]);
  return condition;
}

const VARIANTS = [
  [],
  [
    { key: 'control', rollout_percentage: 50 },
    { key: 'test', rollout_percentage: 50 },
  ],
  [
    { key: 'a', rollout_percentage: 33.3 },
    { key: 'b', rollout_percentage: 33.3 },
    { key: 'control', rollout_percentage: 33.4 },
  ],
  [
    { key: 'control', rollout_percentage: 40 },
    { key: 'control', rollout_percentage: 30 },
    { key: 'test', rollout_percentage: 20 },
  ],
];

function definitionSet(next: Random): FlagDefinitions {
  const flags: FlagDefinition[] = [];
  for (let i = 0; i < 12; i++) {
    const key = `f${i}`;
    const earlier = flags.map((flag) => flag.key);
    const variants = pick(next, VARIANTS);
    const filters: Record<string, unknown> = {
      groups: Array.from({ length: Math.floor(next() * 4) }, () => flagCondition(next, earlier)),
      ...(variants.length > 0 ? { multivariate: { variants } } : {}),
      payloads: { true: '{"on":1}', control: 'c', test: { t: 1 } },
    };
    if (chance(next, 0.25)) filters.aggregation_group_type_index = pick(next, [0, 1]);
    if (chance(next, 0.15)) filters.early_exit = true;
    if (chance(next, 0.08)) filters.feature_enrollment = true;
    if (chance(next, 0.05)) filters.super_groups = [flagCondition(next, [])];
    if (chance(next, 0.06)) filters.holdout = { id: 7, exclusion_percentage: pick(next, [10, 50]) };
    if (chance(next, 0.02)) filters.groups = 'not a list';
    flags.push({
      id: i + 1,
      key,
      version: 1,
      active: !chance(next, 0.05),
      ...(chance(next, 0.1) ? { ensure_experience_continuity: true } : {}),
      ...(chance(next, 0.1) ? { bucketing_identifier: 'device_id' } : {}),
      filters,
    });
  }
  return {
    flags,
    group_type_mapping: { '0': 'company', '1': 'team' },
    cohorts: {
      '1': { type: 'AND', values: [{ key: 'plan', type: 'person', value: ['pro'] }] },
      '2': {
        type: 'OR',
        values: [
          { key: 'id', type: 'cohort', value: 1 },
          { key: 'age', type: 'person', operator: 'gt', value: 30 },
        ],
      },
      '4': { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 5 }] },
      '5': { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 4 }] },
    },
    static_cohort_ids: [3],
  };
}

function requestContext(next: Random, n: number): EvaluationContext {
  const person: Record<string, unknown> = {};
  for (const key of KEYS) if (chance(next, 0.7)) person[key] = pick(next, PERSON_VALUES[key]!);
  const context: EvaluationContext = {
    distinct_id: pick(next, [`user-${n}`, `user-${n % 5}`, '', 12345, 'x'.repeat(250)]),
    person_properties: person,
    timezone: pick(next, ['UTC', 'Europe/Paris', 'Not/AZone', null]),
    now: new Date('2024-06-15T12:00:00Z'),
  };
  if (chance(next, 0.7))
    context.groups = { company: pick(next, ['acme', '', 7, 'globex']), ...(chance(next, 0.4) ? { team: 'blue' } : {}) };
  if (chance(next, 0.6)) context.group_properties = { company: { plan: pick(next, ['pro', 'free']), size: pick(next, [3, 40, '50']) } };
  if (chance(next, 0.3)) context.device_id = pick(next, ['device-1', '']);
  if (chance(next, 0.3)) context.anon_distinct_id = `anon-${n % 3}`;
  if (chance(next, 0.2)) context.hash_key_overrides = { [`f${Math.floor(next() * 12)}`]: 'stored-key' };
  if (chance(next, 0.3)) context.staticCohortIds = [3];
  return context;
}

/** The reference: matchFlag's steps, then the outcome's result (evaluate-flags.ts evaluateFlag as it was). */
function referenceResult(flag: CompiledFlag, state: EvaluationState): FlagEvaluation {
  if (flag.filters.malformed) return failedFlagEvaluation(flag.definition, 'internal_error');
  try {
    return toFlagEvaluation(flag, matchFlag(flag, state));
  } catch (error) {
    return failedFlagEvaluation(flag.definition, error instanceof FlagEvaluationError ? error.code : 'internal_error');
  }
}

/** The whole set by the reference, in evaluation order (a flag's dependencies first), by key. */
function referenceResults(compiled: CompiledDefinitions, context: EvaluationContext): Map<string, FlagEvaluation> {
  const state = createEvaluationState(compiled, context, undefined);
  const results = new Map<string, FlagEvaluation>();
  for (const flag of compiled.missingDependency) {
    const result = toFlagEvaluation(flag, { enabled: false, variant: null, code: 'missing_dependency', conditionIndex: null });
    results.set(flag.key, result);
    state.values.set(flag.key, false);
  }
  for (const flag of compiled.order) {
    const result = referenceResult(flag, state);
    results.set(flag.key, result);
    state.values.set(flag.key, result.value);
  }
  return results;
}

describe('conditions straight to results', () => {
  it('give the reference steps’ results on generated flags and requests', () => {
    const next = seededRandom(32);
    const reasons = new Set<string>();
    let compared = 0;
    for (let set = 0; set < 80; set++) {
      const definitions = definitionSet(next);
      // One compiled set answers every request (as on a server); the reference runs on its own.
      const compiled = compileDefinitions(definitions);
      const reference = compileDefinitions(definitions);
      for (let n = 0; n < 30; n++) {
        const context = requestContext(next, n);
        const expected = referenceResults(reference, context);
        const actual = evaluateFlags(compiled, context);
        for (const result of actual.results) {
          expect(result, `set ${set}, request ${n}, ${result.key}`).toEqual(expected.get(result.key));
          reasons.add(`${result.reason.code}:${result.enabled}`);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(20_000);
    // The generated cases reach every way a flag can end.
    for (const outcome of [
      'condition_match:true',
      'no_condition_match:false',
      'out_of_rollout_bound:false',
      'no_group_type:false',
      'super_condition_value:true',
      'super_condition_value:false',
      'holdout_condition_value:true',
      'dependency_not_found:false',
      'dependency_cycle:false',
      'internal_error:false',
    ]) {
      expect(reasons, outcome).toContain(outcome);
    }
  });
});
