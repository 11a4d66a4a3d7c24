import { describe, expect, it } from 'vitest';
import {
  flagSetEvaluation,
  projectFlagsResponse,
  type FlagEvaluation,
  type FlagSetEvaluation,
  type FlagsResponseProtocol,
  type FlagsV2Body,
} from '../../src/flags/engine/index.js';
import { manifestCaseIds, readCorpusFile } from './contract-corpus.js';

interface ProjectionCase {
  id: string;
  outcome: {
    key: string;
    flag_id: number;
    flag_version: number;
    enabled: boolean;
    variant: string | null;
    payload: unknown;
    failed: boolean;
    omitted: boolean;
    reason: { code: string; condition_index: number | null };
  };
  projections: Record<FlagsResponseProtocol, Record<string, unknown> & { response_version: number }>;
}

const corpus = readCorpusFile<{ cases: ProjectionCase[] }>('legacy_projection.json');

/** The evaluation the engine would have produced for a corpus outcome. */
function evaluationFromOutcome(outcome: ProjectionCase['outcome']): FlagSetEvaluation {
  const flags: Record<string, FlagEvaluation> = {};
  if (!outcome.omitted) {
    flags[outcome.key] = {
      key: outcome.key,
      enabled: outcome.enabled,
      variant: outcome.variant,
      value: outcome.enabled ? (outcome.variant ?? true) : false,
      payload: outcome.payload,
      reason: { ...outcome.reason },
      ...(outcome.failed ? { failed: true } : {}),
      metadata: { id: outcome.flag_id, version: outcome.flag_version },
    };
  }
  return flagSetEvaluation(Object.values(flags), outcome.failed);
}

/** flags_v2 pins only some fields (see the corpus' asserted_fields); keep exactly those. */
function assertedFlagsV2Fields(body: FlagsV2Body) {
  return {
    errorsWhileComputingFlags: body.errorsWhileComputingFlags,
    flags: Object.fromEntries(
      Object.entries(body.flags).map(([key, details]) => [
        key,
        {
          key: details.key,
          enabled: details.enabled,
          variant: details.variant,
          reason: { code: details.reason.code, condition_index: details.reason.condition_index },
          metadata: { id: details.metadata.id, version: details.metadata.version, payload: details.metadata.payload },
          ...(details.failed ? { failed: details.failed } : {}),
        },
      ]),
    ),
  };
}

describe('legacy_projection corpus', () => {
  it('covers every case id listed in the manifest', () => {
    expect(corpus.cases.map((c) => c.id).sort()).toEqual([...manifestCaseIds('legacy_projection.json')].sort());
  });

  describe.each(corpus.cases.map((c) => [c.id, c] as const))('%s', (_id, testCase) => {
    const evaluation = evaluationFromOutcome(testCase.outcome);
    it.each(Object.keys(testCase.projections) as FlagsResponseProtocol[])('%s', (protocol) => {
      // response_version labels the protocol in the corpus; it is not a body field.
      const { response_version: _version, ...expected } = testCase.projections[protocol];
      const body = projectFlagsResponse(evaluation, protocol);
      if (protocol === 'flags_v2') expect(assertedFlagsV2Fields(body as FlagsV2Body)).toEqual(expected);
      else expect(body).toEqual(expected);
    });
  });
});
