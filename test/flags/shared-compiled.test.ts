/**
 * A server compiles a project's definitions once and evaluates every request against them, and
 * compiled flags keep the results they gave (evaluate-flags.ts toFlagEvaluation). Whatever order
 * requests come in, each answer must equal the answer of definitions compiled for it alone.
 */
import { describe, expect, it } from 'vitest';
import { compileDefinitions } from '../../src/flags/engine/compiled-definitions.js';
import { evaluateFlags, type EvaluationContext, type FlagDefinitions } from '../../src/flags/engine/index.js';
import { flagsV1Json, flagsV2Json } from '../../src/flags/engine/response-json.js';
import { condition, flag, person, TWO_VARIANTS } from './flag-fixtures.js';

const definitions: FlagDefinitions = {
  group_type_mapping: { '0': 'company' },
  flags: [
    flag('enroll', {
      groups: [condition([person('plan', 'pro')], 0)],
      multivariate: TWO_VARIANTS,
      payloads: { true: 'in', control: 'c' },
      feature_enrollment: true,
    }),
    flag('legacy-enroll', {
      groups: [condition([person('plan', 'pro')])],
      super_groups: [condition([{ key: '$feature_enrollment/legacy-enroll', type: 'person', operator: 'exact', value: ['true'] }], 50)],
    }),
    flag('held', {
      groups: [condition()],
      multivariate: TWO_VARIANTS,
      holdout: { id: 7, exclusion_percentage: 30 },
      payloads: { 'holdout-7': 'h', test: 't' },
    }),
    flag('legacy-held', { groups: [condition()], multivariate: TWO_VARIANTS, holdout_groups: [condition([], 40, { variant: 'control' })] }),
    flag('rollout', { groups: [condition([person('plan', 'pro')], 50), condition([person('plan', 'team')], 100)] }),
    flag('variants', {
      groups: [condition([], 80), condition([person('plan', 'team')], 100, { variant: 'test' })],
      multivariate: TWO_VARIANTS,
      payloads: { control: '{"a":1}' },
    }),
    flag('company', {
      aggregation_group_type_index: 0,
      groups: [condition([{ key: 'size', type: 'group', group_type_index: 0, operator: 'gt', value: '10' }], 60)],
    }),
    flag('mixed', { groups: [condition([person('plan', 'pro')]), { ...condition([], 100), aggregation_group_type_index: 0 }] }),
  ],
};

function contexts(): EvaluationContext[] {
  const made: EvaluationContext[] = [];
  const enrollments = [undefined, true, false, 'true', 'false'];
  for (let i = 0; i < 120; i++) {
    const properties: Record<string, unknown> = { plan: ['pro', 'team', 'free'][i % 3] };
    const enrolled = enrollments[i % enrollments.length];
    if (enrolled !== undefined) {
      properties['$feature_enrollment/enroll'] = enrolled;
      properties['$feature_enrollment/legacy-enroll'] = enrolled;
    }
    made.push({
      distinct_id: `user-${i}`,
      person_properties: properties,
      ...(i % 4 === 0 ? {} : { groups: { company: `co-${i % 7}` }, group_properties: { company: { size: i % 20 } } }),
    });
  }
  return made;
}

describe('one compiled definition set shared by many requests', () => {
  it('answers each request as definitions compiled for it alone would', () => {
    const shared = compileDefinitions(definitions);
    const all = contexts();
    // Twice through, the second time backwards: every kept result is met again by other requests.
    for (const context of [...all, ...all.reverse()]) {
      const alone = evaluateFlags(compileDefinitions(definitions), context);
      const answer = evaluateFlags(shared, context);
      expect(answer.results).toEqual(alone.results);
      expect(flagsV1Json(answer)).toBe(flagsV1Json(alone));
      expect(flagsV2Json(answer)).toBe(flagsV2Json(alone));
    }
  });

  it('meets both answers of every step that can answer both ways', () => {
    const shared = compileDefinitions(definitions);
    const seen = new Map<string, Set<string>>();
    for (const context of contexts()) {
      for (const result of evaluateFlags(shared, context).results) {
        const key = `${result.key} ${result.reason.code}`;
        if (!seen.has(key)) seen.set(key, new Set());
        seen.get(key)!.add(String(result.value));
      }
    }
    // Without both values here the first test could not tell a result kept for the wrong request.
    expect(seen.get('enroll super_condition_value')).toEqual(new Set(['true', 'false']));
    expect(seen.get('legacy-enroll super_condition_value')).toEqual(new Set(['true', 'false']));
    expect(seen.get('held holdout_condition_value')).toEqual(new Set(['holdout-7']));
    expect(seen.get('variants condition_match')).toEqual(new Set(['control', 'test']));
  });
});
