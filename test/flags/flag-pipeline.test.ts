import { describe, expect, it } from 'vitest';
import { evaluateFlags, type FlagDefinition, type EvaluationContext } from '../../src/flags/engine/index.js';
import { condition, flag, person, TWO_VARIANTS } from './flag-fixtures.js';

function evaluateOne(definition: FlagDefinition, context: EvaluationContext, groupTypeMapping?: Record<string, string>) {
  const result = evaluateFlags({ flags: [definition], group_type_mapping: groupTypeMapping ?? null }, context);
  return result.flags[definition.key]!;
}

describe('conditions and reasons', () => {
  it('reports the last of several targeting misses', () => {
    const f = flag('f', { groups: [condition([person('plan', 'pro')]), condition([person('plan', 'team')])] });
    expect(evaluateOne(f, { distinct_id: 'a', person_properties: { plan: 'free' } }).reason).toEqual({
      code: 'no_condition_match',
      condition_index: 1,
      description: 'No matching condition set',
    });
  });

  it('describes a match with its 1-based condition set', () => {
    const f = flag('f', { groups: [condition([person('plan', 'pro')]), condition()] });
    expect(evaluateOne(f, { distinct_id: 'a' }).reason).toEqual({
      code: 'condition_match',
      condition_index: 1,
      description: 'Matched condition set 2',
    });
  });

  it('a flag with no conditions is false with no_group_type and no index', () => {
    expect(evaluateOne(flag('f', { groups: [] }), { distinct_id: 'a' })).toMatchObject({
      enabled: false,
      reason: { code: 'no_group_type', condition_index: null },
    });
  });

  it('legacy filters without groups use filters.properties and the top-level rollout', () => {
    const legacy = flag('f', { properties: [person('plan', 'pro')] } as never, { rollout_percentage: null });
    expect(evaluateOne(legacy, { distinct_id: 'a', person_properties: { plan: 'pro' } }).enabled).toBe(true);
    expect(evaluateOne(legacy, { distinct_id: 'a', person_properties: { plan: 'free' } }).enabled).toBe(false);
    expect(evaluateOne(flag('f', {}, { filters: null }), { distinct_id: 'a' }).enabled).toBe(true);
    const halfLegacy = flag('f', {}, { rollout_percentage: 50 });
    expect(evaluateOne(halfLegacy, { distinct_id: 'a' }).reason.code).toBe('out_of_rollout_bound'); // 0.887
    expect(evaluateOne(halfLegacy, { distinct_id: 'b' }).enabled).toBe(true); // 0.225
  });

  it('early_exit stops at a rollout miss but not at a targeting miss', () => {
    const groups = [condition([person('plan', 'pro')], 50), condition([], 100)];
    const early = flag('f', { groups, early_exit: true });
    expect(evaluateOne(early, { distinct_id: 'a', person_properties: { plan: 'pro' } })).toMatchObject({
      enabled: false,
      reason: { code: 'out_of_rollout_bound', condition_index: 0 },
    });
    expect(evaluateOne(early, { distinct_id: 'a', person_properties: { plan: 'free' } })).toMatchObject({
      enabled: true,
      reason: { code: 'condition_match', condition_index: 1 },
    });
    expect(evaluateOne(flag('f', { groups }), { distinct_id: 'a', person_properties: { plan: 'pro' } }).enabled).toBe(true);
  });

  it('rollout 0 excludes a normal identifier', () => {
    expect(evaluateOne(flag('f', { groups: [condition([], 0)] }), { distinct_id: 'c' }).reason.code).toBe('out_of_rollout_bound');
  });
});

describe('variants and payloads', () => {
  it('returns the stored payload verbatim for true and for variants, and none for false', () => {
    const objectPayload = { nested: [1, 2] };
    const boolean = flag('f', { groups: [condition([person('plan', 'pro')])], payloads: { true: objectPayload } });
    expect(evaluateOne(boolean, { distinct_id: 'a', person_properties: { plan: 'pro' } }).payload).toBe(objectPayload);
    expect(evaluateOne(boolean, { distinct_id: 'a', person_properties: { plan: 'free' } }).payload).toBeNull();
    const multi = flag('f', { groups: [condition()], multivariate: TWO_VARIANTS, payloads: { test: '"t"', control: '"c"', true: 'x' } });
    expect(evaluateOne(multi, { distinct_id: 'a' })).toMatchObject({ value: 'test', variant: 'test', payload: '"t"' }); // 0.843
    expect(evaluateOne(multi, { distinct_id: 'c' })).toMatchObject({ value: 'control', payload: '"c"' }); // 0.128
  });

  it('leaves a hash beyond the last variant boundary as plain true', () => {
    const partial = flag('f', {
      groups: [condition()],
      multivariate: { variants: [{ key: 'x', rollout_percentage: 10 }] },
      payloads: { true: 'p' },
    });
    expect(evaluateOne(partial, { distinct_id: 'a' })).toMatchObject({ enabled: true, value: true, variant: null, payload: 'p' });
  });

  it('finds only stored payloads: a variant named like an Object method has none of its own', () => {
    const variants = {
      variants: [
        { key: 'constructor', rollout_percentage: 50 },
        { key: 'toString', rollout_percentage: 50 },
      ],
    };
    const named = flag('f', { groups: [condition()], multivariate: variants, payloads: { toString: 'stored' } });
    const results = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => evaluateOne(named, { distinct_id: id }));
    expect(new Set(results.map((r) => r.variant))).toEqual(new Set(['constructor', 'toString']));
    for (const result of results) expect(result.payload).toBe(result.variant === 'toString' ? 'stored' : null);
  });

  it('ignores a variant override on a boolean flag, and overrides never bypass rollout', () => {
    const boolean = flag('f', { groups: [condition([], 100, { variant: 'test' })] });
    expect(evaluateOne(boolean, { distinct_id: 'a' })).toMatchObject({ value: true, variant: null });
    const gated = flag('f', { groups: [condition([], 50, { variant: 'control' })], multivariate: TWO_VARIANTS });
    expect(evaluateOne(gated, { distinct_id: 'a' }).reason.code).toBe('out_of_rollout_bound');
    expect(evaluateOne(gated, { distinct_id: 'b' })).toMatchObject({ value: 'control', reason: { condition_index: 0 } });
  });
});

describe('groups', () => {
  const mapping = { '0': 'organization', '1': 'project' };
  const tierGold = { key: 'tier', type: 'group', group_type_index: 0, operator: 'exact', value: 'gold' };

  it('hashes the group key, not the distinct id', () => {
    const g = flag('g', { groups: [condition([tierGold], 50)], aggregation_group_type_index: 0 });
    const context = (key: unknown) => ({
      distinct_id: 'b',
      groups: { organization: key },
      group_properties: { organization: { tier: 'gold' } },
    });
    expect(evaluateOne(g, context('org-1'), mapping).enabled).toBe(true); // 0.459
    expect(evaluateOne(g, context('a'), mapping).reason.code).toBe('out_of_rollout_bound'); // 0.910
  });

  it('skips group conditions without a usable group key or mapping (no_group_type)', () => {
    const g = flag('g', { groups: [condition([], 100)], aggregation_group_type_index: 0 });
    for (const groups of [{}, { organization: '' }, { organization: true }, { organization: null }, { project: 'p' }]) {
      expect(evaluateOne(g, { distinct_id: 'a', groups }, mapping).reason, JSON.stringify(groups)).toMatchObject({
        code: 'no_group_type',
        condition_index: 0,
      });
    }
    expect(evaluateOne(g, { distinct_id: 'a', groups: { organization: 'o' } }, {}).reason.code).toBe('no_group_type');
  });

  it('injects $group_key into the group properties', () => {
    const g = flag('g', {
      groups: [condition([{ key: '$group_key', type: 'group', group_type_index: 0, value: 'org-1' }])],
      aggregation_group_type_index: 0,
    });
    expect(evaluateOne(g, { distinct_id: 'a', groups: { organization: 'org-1' } }, mapping).enabled).toBe(true);
    expect(evaluateOne(g, { distinct_id: 'a', groups: { organization: 'org-2' } }, mapping).enabled).toBe(false);
  });

  it('supports mixed targeting: each condition has its own aggregation and identifier', () => {
    const mixed = flag('f', {
      groups: [
        condition([tierGold], 100, { aggregation_group_type_index: 0 }),
        condition([person('plan', 'pro')], 100, { aggregation_group_type_index: null }),
      ],
      aggregation_group_type_index: 0,
    });
    const noGroup = evaluateOne(mixed, { distinct_id: 'a', person_properties: { plan: 'free' } }, mapping);
    expect(noGroup.reason).toEqual({
      code: 'no_condition_match',
      condition_index: 1,
      description: 'No matching condition set (group conditions were not evaluated because no group type was provided)',
    });
    expect(evaluateOne(mixed, { distinct_id: 'a', person_properties: { plan: 'pro' } }, mapping).reason).toMatchObject({
      code: 'condition_match',
      condition_index: 1,
    });
    const withGroup = { distinct_id: 'a', groups: { organization: 'o' }, group_properties: { organization: { tier: 'gold' } } };
    expect(evaluateOne(mixed, withGroup, mapping).reason).toMatchObject({ code: 'condition_match', condition_index: 0 });
  });

  it('lets a person condition also filter on a group property by its group_type_index', () => {
    const f = flag('f', {
      groups: [condition([person('plan', 'pro'), { key: 'size', type: 'group', group_type_index: 1, operator: 'gt', value: 10 }])],
    });
    const context = (size: number) => ({
      distinct_id: 'a',
      person_properties: { plan: 'pro' },
      groups: { project: 'p' },
      group_properties: { project: { size } },
    });
    expect(evaluateOne(f, context(11), mapping).enabled).toBe(true);
    expect(evaluateOne(f, context(9), mapping).enabled).toBe(false);
  });
});

describe('holdouts', () => {
  const experiment = (holdout: unknown, extra: Record<string, unknown> = {}) =>
    flag('f', { groups: [condition()], multivariate: TWO_VARIANTS, payloads: { 'holdout-9': 'held' }, holdout, ...extra } as never);

  it('puts members in holdout-<id> with no condition index, before any condition', () => {
    expect(evaluateOne(experiment({ id: 9, exclusion_percentage: 10 }), { distinct_id: 'd' })).toEqual(
      expect.objectContaining({
        value: 'holdout-9',
        variant: 'holdout-9',
        payload: 'held',
        reason: expect.objectContaining({ code: 'holdout_condition_value', condition_index: null }),
      }),
    );
    expect(evaluateOne(experiment({ id: 9, exclusion_percentage: 10 }), { distinct_id: 'a' }).reason.code).toBe('condition_match');
  });

  it('gives boolean flags the holdout variant too', () => {
    const boolean = flag('f', { groups: [condition()], holdout: { id: 3, exclusion_percentage: 10 } });
    expect(evaluateOne(boolean, { distinct_id: 'd' })).toMatchObject({ value: 'holdout-3', variant: 'holdout-3', payload: null });
  });

  it('clamps the exclusion percentage to 0..100', () => {
    expect(evaluateOne(experiment({ id: 9, exclusion_percentage: 150 }), { distinct_id: 'a' }).variant).toBe('holdout-9');
    expect(evaluateOne(experiment({ id: 9, exclusion_percentage: -5 }), { distinct_id: 'd' }).reason.code).toBe('condition_match');
  });

  it('hashes the bare prefix for a group flag without its group key', () => {
    const g = flag('g', { groups: [condition()], aggregation_group_type_index: 0, holdout: { id: 1, exclusion_percentage: 93 } });
    expect(evaluateOne(g, { distinct_id: 'a' }, { '0': 'organization' }).variant).toBe('holdout-1'); // 0.927 <= 0.93
  });

  it('uses the experience-continuity anonymous id but not stored overrides', () => {
    const eec = experiment({ id: 9, exclusion_percentage: 70 }, {});
    eec.ensure_experience_continuity = true;
    expect(evaluateOne(eec, { distinct_id: 'a' }).reason.code).toBe('condition_match'); // a 0.755
    expect(evaluateOne(eec, { distinct_id: 'a', anon_distinct_id: 'anon-1' }).variant).toBe('holdout-9'); // 0.646
    expect(evaluateOne(eec, { distinct_id: 'a', anon_distinct_id: 'anon-1', hash_key_overrides: { f: 'stored-key' } }).variant).toBe(
      'holdout-9',
    );
  });

  it('honours legacy holdout_groups only when they have no properties', () => {
    const legacy = (properties: unknown[]) =>
      flag('f', {
        groups: [condition()],
        multivariate: TWO_VARIANTS,
        holdout_groups: [{ properties, rollout_percentage: 10, variant: 'holdout-legacy' }],
      } as never);
    expect(evaluateOne(legacy([]), { distinct_id: 'd' })).toMatchObject({
      variant: 'holdout-legacy',
      reason: { code: 'holdout_condition_value' },
    });
    expect(evaluateOne(legacy([person('x', 1)]), { distinct_id: 'd' }).reason.code).toBe('condition_match');
  });
});

describe('early access enrollment (super conditions)', () => {
  const enrollable = flag('beta', {
    groups: [condition([person('plan', 'pro')])],
    multivariate: TWO_VARIANTS,
    payloads: { true: 'enrolled', control: 'c' },
    feature_enrollment: true,
  });

  it('enables from $feature_enrollment/<key>, with no variant and the "true" payload', () => {
    expect(evaluateOne(enrollable, { distinct_id: 'a', person_properties: { '$feature_enrollment/beta': 'true' } })).toMatchObject({
      enabled: true,
      value: true,
      variant: null,
      payload: 'enrolled',
      reason: { code: 'super_condition_value', condition_index: 0 },
    });
    expect(evaluateOne(enrollable, { distinct_id: 'a', person_properties: { '$feature_enrollment/beta': true } }).enabled).toBe(true);
  });

  it('an explicit opt-out disables even when conditions would match', () => {
    expect(
      evaluateOne(enrollable, { distinct_id: 'a', person_properties: { plan: 'pro', '$feature_enrollment/beta': false } }),
    ).toMatchObject({
      enabled: false,
      reason: { code: 'super_condition_value', condition_index: 0 },
    });
  });

  it('falls through to the conditions when the person has no enrollment property', () => {
    expect(evaluateOne(enrollable, { distinct_id: 'c', person_properties: { plan: 'pro' } })).toMatchObject({
      value: 'control',
      reason: { code: 'condition_match' },
    });
  });

  it('legacy super_groups apply only when the person has one of their keys', () => {
    const legacy = flag('beta', {
      groups: [condition([person('plan', 'pro')])],
      super_groups: [condition([{ key: '$feature_enrollment/beta', type: 'person', operator: 'exact', value: ['true'] }], 100)],
    });
    expect(evaluateOne(legacy, { distinct_id: 'a', person_properties: { '$feature_enrollment/beta': 'true' } }).reason.code).toBe(
      'super_condition_value',
    );
    expect(evaluateOne(legacy, { distinct_id: 'a', person_properties: { '$feature_enrollment/beta': 'false' } })).toMatchObject({
      enabled: false,
      reason: { code: 'super_condition_value' },
    });
    expect(evaluateOne(legacy, { distinct_id: 'a', person_properties: { plan: 'pro' } }).reason.code).toBe('condition_match');
  });

  it('feature_enrollment takes precedence over super_groups', () => {
    const both = flag('beta', {
      groups: [condition([person('plan', 'pro')])],
      feature_enrollment: true,
      super_groups: [condition([person('vip', true)], 100)],
    });
    expect(evaluateOne(both, { distinct_id: 'a', person_properties: { vip: true, plan: 'free' } }).reason.code).toBe('no_condition_match');
  });
});
