/**
 * The direct JSON writers must produce, byte for byte, what JSON.stringify of the projection
 * gives (with the legacy payload map as JSON text): checked on every evaluation of the contract
 * corpus and on hand-made evaluations with failures, odd keys, non-string payloads and extras.
 */
import { describe, expect, it } from 'vitest';
import {
  evaluateFlags,
  failedFlagEvaluation,
  flagSetEvaluation,
  projectFlagsResponse,
  type EvaluationContext,
  type FlagDefinitions,
  type FlagEvaluation,
  type FlagSetEvaluation,
  type ProjectionExtras,
} from '../../src/flags/engine/index.js';
import { flagsResponseJson, flagsV1Json, flagsV2Json } from '../../src/flags/engine/response-json.js';
import { readCorpusFile } from './contract-corpus.js';
import { condition, flag, person, TWO_VARIANTS } from './flag-fixtures.js';

/** What the HTTP layer sent before: the projection, legacy payloads turned into JSON text, stringified. */
function reference(evaluation: FlagSetEvaluation, protocol: 'flags_v1' | 'flags_v2', extras: ProjectionExtras = {}): string {
  const body = projectFlagsResponse(evaluation, protocol, extras) as unknown as Record<string, unknown>;
  const payloads = body.featureFlagPayloads as Record<string, unknown> | undefined;
  if (payloads) for (const [key, value] of Object.entries(payloads)) if (typeof value !== 'string') payloads[key] = JSON.stringify(value);
  return JSON.stringify(body);
}

function expectSame(evaluation: FlagSetEvaluation, extras: ProjectionExtras = {}) {
  expect(flagsV1Json(evaluation, extras)).toBe(reference(evaluation, 'flags_v1', extras));
  expect(flagsV2Json(evaluation, extras)).toBe(reference(evaluation, 'flags_v2', extras));
}

interface EvaluationCase {
  id: string;
  definitions: FlagDefinitions;
  context: EvaluationContext;
}

describe('direct response JSON', () => {
  const corpus = readCorpusFile<{ cases: EvaluationCase[] }>('v1_evaluation.json');

  it.each(corpus.cases.map((c) => [c.id, c] as const))('matches the projection for corpus case %s', (_id, testCase) => {
    const evaluation = evaluateFlags(testCase.definitions, testCase.context);
    expectSame(evaluation);
    expectSame(evaluation, { requestId: 'req-1', evaluatedAt: 1_700_000_000_123, quotaLimited: ['feature_flags'] });
  });

  it('matches with failed flags, variants, unicode and quoting in keys, and non-string payloads', () => {
    const definitions: FlagDefinitions = {
      flags: [
        flag('on', { groups: [condition()], payloads: { true: '{"a":1}' } }, { id: 1, version: 2 }),
        flag('variant', { groups: [condition()], multivariate: TWO_VARIANTS, payloads: { control: { nested: ['x', 1, null] }, test: 7 } }),
        flag('off', { groups: [condition([person('plan', 'pro')])], payloads: { true: 'never' } }),
        flag('broken', { groups: [condition([{ key: 'id', type: 'cohort', value: 404 }])] }),
        flag('ключ "quoted" \\ \u2028', { groups: [condition()], payloads: { true: 'line\nbreak "q"' } }),
        flag('numeric payload', { groups: [condition()], payloads: { true: 12.5 } }),
        flag('false payload', { groups: [condition()], payloads: { true: false } }),
      ],
    };
    for (const distinctId of ['a', 'b', 'user-42', '', 'émile']) {
      const evaluation = evaluateFlags(definitions, {
        distinct_id: distinctId,
        person_properties: { plan: distinctId === 'a' ? 'pro' : 'free' },
      });
      expect(evaluation.errorsWhileComputingFlags).toBe(true); // the missing cohort
      expectSame(evaluation);
      expectSame(evaluation, { requestId: 'r', evaluatedAt: 5 });
    }
  });

  it('matches for hand-made results (no shared reason or metadata objects)', () => {
    const results: FlagEvaluation[] = [
      {
        key: 'x',
        enabled: true,
        variant: 'v"1',
        value: 'v"1',
        payload: '[1,2]',
        reason: { code: 'condition_match', condition_index: 3 },
        metadata: { id: 9, version: 4 },
      },
      failedFlagEvaluation({ key: 'y', id: 2, version: 1 }, 'dependency_cycle'),
      {
        key: 'z',
        enabled: false,
        variant: null,
        value: false,
        payload: null,
        reason: { code: 'no_condition_match', condition_index: null, description: 'd' },
        metadata: { id: 0, version: 0 },
      },
    ];
    expectSame(flagSetEvaluation(results, true));
    expectSame(flagSetEvaluation([], false), { quotaLimited: [] });
  });

  it('puts other members first when given an object head', () => {
    const evaluation = evaluateFlags({ flags: [flag('on', { groups: [condition()], payloads: { true: 'p' } })] }, { distinct_id: 'a' });
    const head = '{"config":{"enable_collect_everything":true},"siteApps":[],';
    for (const protocol of ['flags_v1', 'flags_v2'] as const) {
      const text = flagsResponseJson(evaluation, protocol, {}, head)!;
      expect(JSON.parse(text)).toEqual({
        config: { enable_collect_everything: true },
        siteApps: [],
        ...JSON.parse(reference(evaluation, protocol)),
      });
    }
    expect(() => flagsV1Json(evaluation, {}, '{"a":1')).toThrow();
  });

  it('writes only the legacy and detailed protocols', () => {
    const evaluation = flagSetEvaluation([], false);
    expect(flagsResponseJson(evaluation, 'decide_v1')).toBeNull();
    expect(flagsResponseJson(evaluation, 'decide_v2')).toBeNull();
    expect(JSON.parse(flagsResponseJson(evaluation, 'flags_v1')!)).toEqual({
      featureFlags: {},
      featureFlagPayloads: {},
      errorsWhileComputingFlags: false,
    });
    expect(JSON.parse(flagsResponseJson(evaluation, 'flags_v2')!)).toEqual({ flags: {}, errorsWhileComputingFlags: false });
  });
});
