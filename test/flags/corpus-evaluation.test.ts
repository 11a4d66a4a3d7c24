import { describe, expect, it } from 'vitest';
import { evaluateFlags, type EvaluationContext, type FlagDefinitions } from '../../src/flags/engine/index.js';
import { manifestCaseIds, readCorpusFile } from './contract-corpus.js';

interface ExpectedFlag {
  value: boolean | string;
  enabled: boolean;
  variant: string | null;
  payload: unknown;
  reason: { code: string; condition_index: number | null };
}

interface EvaluationCase {
  id: string;
  definitions: FlagDefinitions;
  context: EvaluationContext;
  expected: { flags: Record<string, ExpectedFlag>; omitted_flags: string[] };
}

const corpus = readCorpusFile<{ cases: EvaluationCase[] }>('v1_evaluation.json');

describe('v1_evaluation corpus', () => {
  it('covers every case id listed in the manifest', () => {
    expect(corpus.cases.map((c) => c.id).sort()).toEqual([...manifestCaseIds('v1_evaluation.json')].sort());
  });

  it.each(corpus.cases.map((c) => [c.id, c] as const))('%s', (_id, testCase) => {
    const result = evaluateFlags(testCase.definitions, testCase.context);

    // Exactly the expected flags are returned: omitted ones are absent, nothing extra appears.
    expect(Object.keys(result.flags).sort()).toEqual(Object.keys(testCase.expected.flags).sort());
    for (const omitted of testCase.expected.omitted_flags) expect(result.flags).not.toHaveProperty(omitted);

    for (const [key, expected] of Object.entries(testCase.expected.flags)) {
      const actual = result.flags[key]!;
      expect({
        value: actual.value,
        enabled: actual.enabled,
        variant: actual.variant,
        payload: actual.payload,
        reason: { code: actual.reason.code, condition_index: actual.reason.condition_index },
      }).toEqual({
        value: expected.value,
        enabled: expected.enabled,
        variant: expected.variant,
        payload: expected.payload,
        reason: expected.reason,
      });
      expect(actual.failed).toBeUndefined();
    }
    // No corpus case involves an evaluation failure or a dependency cycle.
    expect(result.errorsWhileComputingFlags).toBe(false);
  });
});
