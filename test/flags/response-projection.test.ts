import { describe, expect, it } from 'vitest';
import {
  evaluateFlags,
  flagSetEvaluation,
  projectFlagsResponse,
  selectResponseProtocol,
  type FlagDefinitions,
} from '../../src/flags/engine/index.js';
import { condition, flag, person, TWO_VARIANTS } from './flag-fixtures.js';

describe('selectResponseProtocol', () => {
  it('maps /decide versions', () => {
    expect(selectResponseProtocol('decide', undefined)).toBe('decide_v1');
    expect(selectResponseProtocol('decide', '1')).toBe('decide_v1');
    expect(selectResponseProtocol('decide', 2)).toBe('decide_v2');
    expect(selectResponseProtocol('decide', '3')).toBe('flags_v1');
    expect(selectResponseProtocol('decide', 4)).toBe('flags_v2');
    expect(selectResponseProtocol('decide', '5')).toBe('flags_v2');
  });

  it('maps /flags versions (no v means detailed)', () => {
    expect(selectResponseProtocol('flags', undefined)).toBe('flags_v2');
    expect(selectResponseProtocol('flags', '')).toBe('flags_v2');
    expect(selectResponseProtocol('flags', '1')).toBe('flags_v1');
    expect(selectResponseProtocol('flags', 2)).toBe('flags_v2');
    expect(selectResponseProtocol('flags', 'junk')).toBe('flags_v2');
  });
});

describe('projectFlagsResponse from a real evaluation', () => {
  const definitions: FlagDefinitions = {
    flags: [
      flag('on', { groups: [condition()], payloads: { true: '{"a":1}' } }, { id: 1, version: 2 }),
      flag('variant', { groups: [condition()], multivariate: TWO_VARIANTS, payloads: { control: 'C', test: 'T' } }, { id: 3, version: 1 }),
      flag('off', { groups: [condition([person('plan', 'pro')])], payloads: { true: 'never' } }, { id: 4, version: 1 }),
      flag('broken', { groups: [condition([{ key: 'id', type: 'cohort', value: 404 }])] }, { id: 5, version: 9 }),
      flag('inactive', { groups: [condition()] }, { active: false }),
    ],
  };
  const evaluation = evaluateFlags(definitions, { distinct_id: 'a' }); // "variant.avariant" hashes to 0.432: control

  it('decide v1 lists enabled keys only', () => {
    expect(projectFlagsResponse(evaluation, 'decide_v1')).toEqual({ featureFlags: ['on', 'variant'] });
  });

  it('decide v2 maps enabled flags to true or their variant', () => {
    expect(projectFlagsResponse(evaluation, 'decide_v2')).toEqual({ featureFlags: { on: true, variant: 'control' } });
  });

  it('flags v1 lists every evaluated flag, failed ones as false, payloads only for enabled ones', () => {
    expect(projectFlagsResponse(evaluation, 'flags_v1', { requestId: 'req-1', evaluatedAt: 1760000000000 })).toEqual({
      featureFlags: { on: true, variant: 'control', off: false, broken: false },
      featureFlagPayloads: { on: '{"a":1}', variant: 'C' },
      errorsWhileComputingFlags: true,
      requestId: 'req-1',
      evaluatedAt: 1760000000000,
    });
  });

  it('flags v2 gives details, marks failures and keeps payloads verbatim', () => {
    const body = projectFlagsResponse(evaluation, 'flags_v2', { quotaLimited: ['feature_flags'] });
    expect(body).toEqual({
      errorsWhileComputingFlags: true,
      quotaLimited: ['feature_flags'],
      flags: {
        on: {
          key: 'on',
          enabled: true,
          variant: null,
          reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
          metadata: { id: 1, version: 2, description: null, payload: '{"a":1}', has_experiment: false },
        },
        variant: {
          key: 'variant',
          enabled: true,
          variant: 'control',
          reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
          metadata: { id: 3, version: 1, description: null, payload: 'C', has_experiment: false },
        },
        off: {
          key: 'off',
          enabled: false,
          variant: null,
          reason: { code: 'no_condition_match', condition_index: 0, description: 'No matching condition set' },
          metadata: { id: 4, version: 1, description: null, payload: null, has_experiment: false },
        },
        broken: {
          key: 'broken',
          enabled: false,
          variant: null,
          failed: true,
          reason: expect.objectContaining({ code: 'dependency_not_found', condition_index: null }),
          metadata: { id: 5, version: 9, description: null, payload: null, has_experiment: false },
        },
      },
    });
  });

  it('accepts decide_v3 / decide_v4 as aliases of the flags v1 / v2 bodies', () => {
    expect(projectFlagsResponse(evaluation, 'decide_v3')).toEqual(projectFlagsResponse(evaluation, 'flags_v1'));
    expect(projectFlagsResponse(evaluation, 'decide_v4')).toEqual(projectFlagsResponse(evaluation, 'flags_v2'));
  });

  it('an empty evaluation projects to empty bodies', () => {
    const empty = flagSetEvaluation([], false);
    expect(projectFlagsResponse(empty, 'decide_v1')).toEqual({ featureFlags: [] });
    expect(projectFlagsResponse(empty, 'flags_v1')).toEqual({
      featureFlags: {},
      featureFlagPayloads: {},
      errorsWhileComputingFlags: false,
    });
    expect(projectFlagsResponse(empty, 'flags_v2')).toEqual({ flags: {}, errorsWhileComputingFlags: false });
  });
});
