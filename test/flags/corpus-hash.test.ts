import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  flagHash,
  hash01,
  hashBits60,
  holdoutHash,
  identifierToString,
  isHashInRollout,
  isHoldoutMember,
  selectVariantForHash,
  truncateIdentifier,
} from '../../src/flags/engine/index.js';
import { manifestCaseIds, readCorpusFile } from './contract-corpus.js';

interface HashVector {
  id: string;
  prefix: string;
  identifier: string;
  salt: string;
  input: string;
  sha1_hex: string;
  first_15_hex: string;
  n: string;
  hash01: number;
  hash01_if_quotient_rounded_once?: number;
  identifier_before_truncation?: string;
  identifier_source?: { json_group_key: number };
  rollout_checks?: Array<{ rollout_percentage: number; threshold: number; included: boolean }>;
  holdout_checks?: Array<{ exclusion_percentage: number; member: boolean }>;
  variant_check?: {
    variants: Array<{ key: string; rollout_percentage: number }>;
    cumulative_boundaries: number[];
    selected: string | null;
  };
}

interface HashCorpus {
  vectors: HashVector[];
  threshold_vectors: Array<{ id: string; hash01: number; rollout_percentage: number; threshold: number; included: boolean }>;
  variant_vectors: Array<{
    id: string;
    hash01: number;
    variants: Array<{ key: string; rollout_percentage: number }>;
    cumulative_boundaries: number[];
    selected: string | null;
  }>;
  seed_parity: Array<{
    id: string;
    flag_key: string;
    identifier: string | null;
    salt: string;
    v1_input?: string;
    hash01: number;
    divergence?: string;
  }>;
}

const corpus = readCorpusFile<HashCorpus>('hash_sha1_60_v1.json');

describe('hash_sha1_60_v1 corpus', () => {
  it('covers every case id listed in the manifest', () => {
    const ids = [...corpus.vectors, ...corpus.threshold_vectors, ...corpus.variant_vectors, ...corpus.seed_parity].map((c) => c.id);
    expect(ids.sort()).toEqual([...manifestCaseIds('hash_sha1_60_v1.json')].sort());
  });

  describe('vectors', () => {
    it.each(corpus.vectors.map((v) => [v.id, v] as const))('%s', (_id, vector) => {
      // The identifier the engine would hash: truncated and (for JSON group keys) normalised.
      const raw = vector.identifier_source
        ? vector.identifier_source.json_group_key
        : (vector.identifier_before_truncation ?? vector.identifier);
      const identifier = truncateIdentifier(identifierToString(raw)!);
      expect(identifier).toBe(vector.identifier);
      expect(vector.prefix + identifier + vector.salt).toBe(vector.input);

      expect(createHash('sha1').update(vector.input, 'utf8').digest('hex')).toBe(vector.sha1_hex);
      expect(hashBits60(vector.prefix, identifier, vector.salt).toString()).toBe(vector.n);
      const hash = hash01(vector.prefix, identifier, vector.salt);
      expect(hash).toBe(vector.hash01);
      if (vector.hash01_if_quotient_rounded_once !== undefined) expect(hash).not.toBe(vector.hash01_if_quotient_rounded_once);

      for (const check of vector.rollout_checks ?? []) {
        expect(isHashInRollout(hash, check.rollout_percentage), `rollout ${check.rollout_percentage}`).toBe(check.included);
      }
      for (const check of vector.holdout_checks ?? []) {
        expect(isHoldoutMember(identifier, check.exclusion_percentage), `holdout ${check.exclusion_percentage}`).toBe(check.member);
      }
      if (vector.variant_check) {
        expect(selectVariantForHash(hash, vector.variant_check.variants)).toBe(vector.variant_check.selected);
      }
    });
  });

  describe('threshold_vectors', () => {
    it.each(corpus.threshold_vectors.map((v) => [v.id, v] as const))('%s', (_id, vector) => {
      expect(vector.rollout_percentage / 100).toBe(vector.threshold);
      expect(isHashInRollout(vector.hash01, vector.rollout_percentage)).toBe(vector.included);
    });
  });

  describe('variant_vectors', () => {
    it.each(corpus.variant_vectors.map((v) => [v.id, v] as const))('%s', (_id, vector) => {
      let boundary = 0;
      const boundaries = vector.variants.map((variant) => (boundary += variant.rollout_percentage / 100));
      expect(boundaries).toEqual(vector.cumulative_boundaries);
      expect(selectVariantForHash(vector.hash01, vector.variants)).toBe(vector.selected);
    });
  });

  describe('seed_parity', () => {
    it.each(corpus.seed_parity.map((v) => [v.id, v] as const))('%s', (_id, vector) => {
      if (vector.identifier === null) {
        // White-box hash of 1.0: version 1 assigns no variant (boolean true).
        expect(
          selectVariantForHash(vector.hash01, [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 50 },
          ]),
        ).toBeNull();
        return;
      }
      const isHoldout = vector.v1_input?.startsWith('holdout-') ?? false;
      const computed = isHoldout ? holdoutHash(vector.identifier) : hash01(`${vector.flag_key}.`, vector.identifier, vector.salt);
      expect(computed).toBe(vector.hash01);
      if (vector.divergence === 'empty_identifier') {
        // The v1 reference never uses the prefix-alone hash for rollout/variants: it uses 0.0.
        expect(flagHash(vector.flag_key, vector.identifier, vector.salt)).toBe(0);
      } else if (!isHoldout) {
        expect(flagHash(vector.flag_key, vector.identifier, vector.salt)).toBe(vector.hash01);
      }
    });
  });
});
