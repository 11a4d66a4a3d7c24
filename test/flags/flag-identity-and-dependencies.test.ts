import { describe, expect, it } from 'vitest';
import { evaluateFlags, findCyclicFlags, type EvaluationContext, type FlagDefinition } from '../../src/flags/engine/index.js';
import { condition, dependsOn, flag, person, TWO_VARIANTS } from './flag-fixtures.js';

const evaluateOne = (definition: FlagDefinition, context: EvaluationContext) =>
  evaluateFlags({ flags: [definition] }, context).flags[definition.key]!;

describe('hash identifiers', () => {
  const eec = (ensure: boolean) => flag('eec', { groups: [condition([], 10)] }, { ensure_experience_continuity: ensure });

  it('uses a caller-supplied hash-key override for the flag', () => {
    expect(evaluateOne(eec(true), { distinct_id: 'b' }).enabled).toBe(false); // b 0.765
    expect(evaluateOne(eec(true), { distinct_id: 'b', hash_key_overrides: { eec: 'a' } }).enabled).toBe(true); // a 0.031
    // The reference applies a stored override whatever the flag's current EEC setting.
    expect(evaluateOne(eec(false), { distinct_id: 'b', hash_key_overrides: { eec: 'a' } }).enabled).toBe(true);
    expect(evaluateOne(eec(true), { distinct_id: 'b', hash_key_overrides: { other: 'a' } }).enabled).toBe(false);
  });

  it('falls back to the anonymous id only for experience-continuity flags, after the stored override', () => {
    expect(evaluateOne(eec(true), { distinct_id: 'b', anon_distinct_id: 'a' }).enabled).toBe(true);
    expect(evaluateOne(eec(false), { distinct_id: 'b', anon_distinct_id: 'a' }).enabled).toBe(false);
    expect(evaluateOne(eec(true), { distinct_id: 'a', anon_distinct_id: 'a', hash_key_overrides: { eec: 'stored-key' } }).enabled).toBe(
      false,
    );
  });

  it('uses the override for variant hashing too', () => {
    const multi = flag('f', { groups: [condition()], multivariate: TWO_VARIANTS });
    expect(evaluateOne(multi, { distinct_id: 'a' }).variant).toBe('test'); // a 0.843
    expect(evaluateOne(multi, { distinct_id: 'a', hash_key_overrides: { f: 'c' } }).variant).toBe('control'); // c 0.128
  });

  it('normalises numeric distinct ids and truncates long ones to 200 scalar values', () => {
    // "f." + 200 b's hashes to 0.069; with 250 b's it would be 0.763; "f.42" hashes to 0.376.
    const tenPercent = flag('f', { groups: [condition([], 10)] });
    expect(evaluateOne(tenPercent, { distinct_id: 'b'.repeat(250) }).enabled).toBe(true);
    const fortyPercent = flag('f', { groups: [condition([], 40)] });
    expect(evaluateOne(fortyPercent, { distinct_id: 42 }).enabled).toBe(true);
    const thirtyPercent = flag('f', { groups: [condition([], 30)] });
    expect(evaluateOne(thirtyPercent, { distinct_id: 42 }).enabled).toBe(false);
  });

  it('device bucketing hashes the device id and skips person conditions without one', () => {
    const device = flag('f', { groups: [condition([], 40)] }, { bucketing_identifier: 'device_id' });
    expect(evaluateOne(device, { distinct_id: 'a', device_id: 'dev-1' }).enabled).toBe(true); // dev-1 0.336; a would be 0.887
    expect(evaluateOne(device, { distinct_id: 'a', person_properties: { $device_id: 'dev-1' } }).enabled).toBe(true);
    const always = flag('f', { groups: [condition([], 100)] }, { bucketing_identifier: 'device_id' });
    expect(evaluateOne(always, { distinct_id: 'a' }).reason).toMatchObject({ code: 'out_of_rollout_bound', condition_index: 0 });
  });

  it('empty distinct ids are included at any rollout and get the first variant', () => {
    const multi = flag('f', { groups: [condition([], 0)], multivariate: TWO_VARIANTS });
    expect(evaluateOne(multi, { distinct_id: '' })).toMatchObject({ value: 'control', reason: { code: 'condition_match' } });
  });
});

describe('flag dependencies', () => {
  it('evaluates dependencies first whatever the definition order', () => {
    const flags = [
      flag('top', { groups: [condition([dependsOn('middle', true)])] }),
      flag('middle', { groups: [condition([dependsOn('base', 'test')])] }),
      flag('base', { groups: [condition()], multivariate: TWO_VARIANTS }),
    ];
    const result = evaluateFlags({ flags }, { distinct_id: 'a' }); // base = test for a
    expect(Object.keys(result.flags)).toEqual(['top', 'middle', 'base']);
    expect(result.flags.base!.value).toBe('test');
    expect(result.flags.middle!.enabled).toBe(true);
    expect(result.flags.top!.enabled).toBe(true);
    const c = evaluateFlags({ flags }, { distinct_id: 'c' }); // base = control
    expect(c.flags.middle!.reason.code).toBe('no_condition_match');
    expect(c.flags.top!.enabled).toBe(false);
  });

  it('matches true against any variant, false only against false, strings exactly', () => {
    const base = flag('base', { groups: [condition()], multivariate: TWO_VARIANTS });
    const expectations: Array<[unknown, boolean]> = [
      [true, true],
      [false, false],
      ['test', true],
      ['Test', false],
      ['control', false],
      [1, false],
    ];
    for (const [expected, enabled] of expectations) {
      const dependent = flag('dep', { groups: [condition([dependsOn('base', expected)])] });
      expect(evaluateFlags({ flags: [base, dependent] }, { distinct_id: 'a' }).flags.dep!.enabled, String(expected)).toBe(enabled);
    }
  });

  it('requires the flag_evaluates_to operator', () => {
    const base = flag('base', { groups: [condition()] });
    const dependent = flag('dep', { groups: [condition([{ key: 'base', type: 'flag', operator: 'exact', value: true }])] });
    expect(evaluateFlags({ flags: [base, dependent] }, { distinct_id: 'a' }).flags.dep!.enabled).toBe(false);
  });

  it('resolves stored dependencies that name the target by id', () => {
    const base = flag('base', { groups: [condition()] }, { id: 501 });
    const dependent = flag('dep', { groups: [condition([dependsOn('501', true)])] });
    expect(evaluateFlags({ flags: [dependent, base] }, { distinct_id: 'a' }).flags.dep!.enabled).toBe(true);
  });

  it('reads an inactive dependency as false (and still omits it)', () => {
    const base = flag('base', { groups: [condition()] }, { active: false });
    const whenOff = flag('when-off', { groups: [condition([dependsOn('base', false)])] });
    const result = evaluateFlags({ flags: [base, whenOff] }, { distinct_id: 'a' });
    expect(result.flags).not.toHaveProperty('base');
    expect(result.flags['when-off']!.enabled).toBe(true);
  });

  it('a deleted or absent dependency gives missing_dependency without an error', () => {
    const base = flag('base', { groups: [condition()] }, { deleted: true });
    const dependent = flag('dep', { groups: [condition([dependsOn('base', true)])] });
    const result = evaluateFlags({ flags: [base, dependent] }, { distinct_id: 'a' });
    expect(result.flags).not.toHaveProperty('base');
    expect(result.flags.dep).toMatchObject({
      enabled: false,
      reason: { code: 'missing_dependency', condition_index: null, description: 'Flag cannot be evaluated due to missing dependency' },
    });
    expect(result.flags.dep!.failed).toBeUndefined();
    expect(result.errorsWhileComputingFlags).toBe(false);
  });

  it('cycles (and flags depending on them) give missing_dependency and set errorsWhileComputingFlags', () => {
    const flags = [
      flag('x', { groups: [condition([dependsOn('y', true)])] }),
      flag('y', { groups: [condition([dependsOn('x', true)])] }),
      flag('z', { groups: [condition([dependsOn('x', false)])] }),
      flag('self', { groups: [condition([dependsOn('self', true)])] }),
      flag('free', { groups: [condition()] }),
    ];
    const result = evaluateFlags({ flags }, { distinct_id: 'a' });
    for (const key of ['x', 'y', 'z', 'self']) {
      expect(result.flags[key], key).toMatchObject({ enabled: false, reason: { code: 'missing_dependency', condition_index: null } });
    }
    expect(result.flags.free!.enabled).toBe(true);
    expect(result.errorsWhileComputingFlags).toBe(true);
  });

  it('findCyclicFlags reports only members of cycles', () => {
    const edges = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', ['e']],
      ['f', []],
    ]);
    expect([...findCyclicFlags(edges)].sort()).toEqual(['a', 'b', 'c', 'e']);
  });

  it('with flagKeys, returns only the requested flags but still evaluates their dependencies', () => {
    const flags = [
      flag('base', { groups: [condition([person('plan', 'pro')])] }),
      flag('dep', { groups: [condition([dependsOn('base', true)])] }),
      flag('other', { groups: [condition()] }),
    ];
    const result = evaluateFlags({ flags }, { distinct_id: 'a', person_properties: { plan: 'pro' } }, { flagKeys: ['dep'] });
    expect(Object.keys(result.flags)).toEqual(['dep']);
    expect(result.flags.dep!.enabled).toBe(true);
  });
});

describe('omission and metadata', () => {
  it('omits inactive and deleted flags and carries id/version', () => {
    const flags = [
      flag('on', { groups: [condition()] }, { id: 7, version: 4 }),
      flag('off', { groups: [condition()] }, { active: false }),
      flag('gone', { groups: [condition()] }, { deleted: true }),
      flag('no-meta', { groups: [condition()] }, { id: null, version: null }),
    ];
    const result = evaluateFlags({ flags }, { distinct_id: 'a' });
    expect(Object.keys(result.flags)).toEqual(['on', 'no-meta']);
    expect(result.flags.on!.metadata).toEqual({ id: 7, version: 4 });
    expect(result.flags['no-meta']!.metadata).toEqual({ id: 0, version: 0 });
  });
});
