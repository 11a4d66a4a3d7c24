/** Small builders for flag definitions used by the engine's unit tests. */
import type { FlagCondition, FlagDefinition, FlagFilters, PropertyFilter } from '../../src/flags/engine/index.js';

let nextId = 1000;

export function flag(key: string, filters: FlagFilters, extra: Partial<FlagDefinition> = {}): FlagDefinition {
  return { id: nextId++, key, version: 1, active: true, filters, ...extra };
}

export function condition(
  properties: PropertyFilter[] = [],
  rollout_percentage: number | null = 100,
  extra: Partial<FlagCondition> = {},
): FlagCondition {
  return { properties, rollout_percentage, ...extra };
}

export function person(key: string, value: unknown, operator = 'exact'): PropertyFilter {
  return { key, type: 'person', operator, value };
}

export function dependsOn(key: string, value: unknown): PropertyFilter {
  return { key, type: 'flag', operator: 'flag_evaluates_to', value };
}

export const TWO_VARIANTS = {
  variants: [
    { key: 'control', rollout_percentage: 50 },
    { key: 'test', rollout_percentage: 50 },
  ],
};

/*
 * Hashes used below (sha1_60_v1), so expectations are readable:
 *   rollout  "f.<id>":         a 0.887  b 0.225  c 0.010  d 0.479  e 0.612
 *   variant  "f.<id>variant":  a 0.843  c 0.128
 *   holdout  "holdout-<id>":   a 0.755  d 0.041  anon-1 0.646  stored-key 0.893  (bare prefix 0.927)
 *   rollout  "g.<id>":         org-1 0.459  a 0.910
 *   rollout  "eec.<id>":       a 0.031  b 0.765  anon-1 0.263  stored-key 0.881
 *   rollout  "f.dev-1":        0.336
 */
