/**
 * Compiled property filters (property-matchers.ts) against the reference, matchProperty, over
 * every operator crossed with many filter values and property values (present, missing, of every
 * JSON type). Each compiled filter is also run on many property maps in a row, as a server runs
 * one compiled definition set on many requests.
 */
import { describe, expect, it } from 'vitest';
import { matchProperty, type MatchEnvironment, type PropertyFilter } from '../../src/flags/engine/index.js';
import { compilePropertyMatcher } from '../../src/flags/engine/property-matchers.js';

const OPERATORS = [
  undefined,
  null,
  'exact',
  'is_not',
  'is_set',
  'is_not_set',
  'icontains',
  'not_icontains',
  'icontains_multi',
  'not_icontains_multi',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'not_between',
  'semver_eq',
  'semver_neq',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
  'is_date_before',
  'is_date_after',
  'is_date_exact',
  'in',
  'not_in',
  'flag_evaluates_to',
  'no_such_operator',
] as const;

/** Values a property or a filter may hold: texts of every kind the operators read, numbers, booleans, lists, objects. */
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  'pro',
  'PRO',
  'Pro plan',
  'école',
  'ÉCOLE',
  'user@example.com',
  'USER@Example.COM',
  'example.com',
  'true',
  'TRUE',
  'false',
  'False',
  '5',
  '5.0',
  '-3',
  '1e3',
  '12',
  'inf',
  'NaN',
  ' 5',
  '1.2.3',
  'v1.2.3',
  '1.2',
  '1.10.0-beta.1',
  '1.2.3+build',
  '1.x',
  '2024-01-01',
  '2024-06-15T12:00:00Z',
  '-7d',
  '1700000000',
  '^pro',
  '(?i)^PRO',
  '.*@example\\.com$',
  '(',
  '(?=p)pro',
  '(a)\\1',
  0,
  5,
  12,
  -3,
  1.5,
  1e21,
  1700000000,
  true,
  false,
  [],
  ['pro', 'team'],
  ['PRO'],
  [5, '12'],
  [true],
  ['true', 'false'],
  ['example', 'nope'],
  [1, 10],
  [10, 1],
  ['1', 'x'],
  [null, 3],
  { plan: 'pro' },
];

const env: MatchEnvironment = { timezone: 'Europe/Paris', now: new Date('2024-06-15T12:00:00Z') };

describe('compilePropertyMatcher', () => {
  it('answers as matchProperty for every operator, filter value and property value', () => {
    let compared = 0;
    let matched = 0;
    for (const operator of OPERATORS) {
      for (const filterValue of VALUES) {
        for (const type of ['person', 'person_metadata'] as const) {
          const filter: PropertyFilter = { key: 'plan', type, ...(operator === undefined ? {} : { operator }), value: filterValue };
          const compiled = compilePropertyMatcher(filter);
          const maps: Array<Record<string, unknown>> = [
            {},
            { other: 'pro' },
            ...VALUES.map((value) => ({ plan: value, __posthog_person_metadata__plan: value })),
          ];
          for (const properties of maps) {
            const expected = matchProperty(filter, properties, env);
            const actual = compiled(properties, env);
            if (actual !== expected) {
              throw new Error(`${JSON.stringify(filter)} on ${JSON.stringify(properties)}: ${actual}, matchProperty ${expected}`);
            }
            compared++;
            if (expected) matched++;
          }
        }
      }
    }
    expect(compared).toBe(OPERATORS.length * VALUES.length * 2 * (VALUES.length + 2));
    // Both answers occur often: the comparison is not between two constant functions.
    expect(matched).toBeGreaterThan(compared / 10);
    expect(matched).toBeLessThan(compared - compared / 10);
  });

  it('reads the filter when compiled: a later change of the filter does not change the matcher', () => {
    const filter: PropertyFilter = { key: 'plan', type: 'person', operator: 'icontains', value: 'pro' };
    const compiled = compilePropertyMatcher(filter);
    filter.value = 'team';
    expect(compiled({ plan: 'Pro plan' }, env)).toBe(true);
    expect(compiled({ plan: 'team' }, env)).toBe(false);
  });

  it('date and semver range filters read the clock and timezone of each evaluation', () => {
    const filter: PropertyFilter = { key: 'seen', type: 'person', operator: 'is_date_after', value: '-7d' };
    const compiled = compilePropertyMatcher(filter);
    const properties = { seen: '2024-06-10T00:00:00Z' };
    expect(compiled(properties, env)).toBe(true);
    expect(compiled(properties, { timezone: 'UTC', now: new Date('2024-07-15T12:00:00Z') })).toBe(false);
    const range = compilePropertyMatcher({ key: 'v', type: 'person', operator: 'semver_caret', value: '1.2.0' });
    expect(range({ v: '1.9.3' }, env)).toBe(true);
    expect(range({ v: '2.0.0' }, env)).toBe(false);
  });
});
