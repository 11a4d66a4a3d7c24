/**
 * The 1000-identifier consistency suites shared by PostHog's server and every SDK
 * (docs/posthog-parity.md). The expected strings are pinned by their SHA-256 digests.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { evaluateFlags, type FlagDefinitions } from '../../src/flags/engine/index.js';

const ids = Array.from({ length: 1000 }, (_, i) => `distinct_id_${i}`);
const sha256 = (text: string) => createHash('sha256').update(text, 'ascii').digest('hex');

describe('consistency suites', () => {
  it('simple flag at 45%: 446 of 1000 enabled, exact bit string', () => {
    const definitions: FlagDefinitions = {
      flags: [{ id: 1, key: 'simple-flag', active: true, filters: { groups: [{ properties: [], rollout_percentage: 45 }] } }],
    };
    let bits = '';
    for (const id of ids) {
      const flag = evaluateFlags(definitions, { distinct_id: id }).flags['simple-flag']!;
      bits += flag.enabled ? '1' : '0';
      expect(flag.reason).toMatchObject(
        flag.enabled ? { code: 'condition_match', condition_index: 0 } : { code: 'out_of_rollout_bound', condition_index: 0 },
      );
    }
    expect(bits.split('').filter((bit) => bit === '1')).toHaveLength(446);
    expect(sha256(bits)).toBe('e8d170e18078f6c80b2cfb3cdf1bb69b7ec76d68481106c9b5147a6816e17d2e');
  });

  it('multivariate flag at 55% with five variants: exact encoded string and counts', () => {
    const variants = ['first-variant', 'second-variant', 'third-variant', 'fourth-variant', 'fifth-variant'];
    const definitions: FlagDefinitions = {
      flags: [
        {
          id: 1,
          key: 'multivariate-flag',
          active: true,
          filters: {
            groups: [{ properties: [], rollout_percentage: 55 }],
            multivariate: {
              variants: variants.map((key, i) => ({ key, rollout_percentage: [50, 20, 20, 5, 5][i]! })),
            },
          },
        },
      ],
    };
    const values = ids.map((id) => evaluateFlags(definitions, { distinct_id: id }).flags['multivariate-flag']!.value);
    const encoded = values.map((value) => (value === false ? '0' : String(variants.indexOf(value as string) + 1))).join('');
    expect(values.slice(0, 12)).toEqual([
      'second-variant',
      'second-variant',
      'first-variant',
      false,
      false,
      'second-variant',
      'first-variant',
      false,
      false,
      false,
      'first-variant',
      'third-variant',
    ]);
    const count = (digit: string) => encoded.split('').filter((c) => c === digit).length;
    expect([count('0'), count('1'), count('2'), count('3'), count('4'), count('5')]).toEqual([444, 290, 110, 111, 24, 21]);
    expect(sha256(encoded)).toBe('479afd6ad01da74da9efd3529b61e9128549fbd484c3eb733445f6f0cf64fd35');
  });
});
