import { describe, expect, it } from 'vitest';
import { compareVersions, matchProperty, parseVersion, type MatchEnvironment } from '../../src/flags/engine/index.js';

const env: MatchEnvironment = { timezone: 'UTC', now: new Date('2024-01-01T00:00:00Z') };
const semver = (operator: string, value: unknown, version: unknown) =>
  matchProperty({ key: 'v', type: 'person', operator, value }, { v: version }, env);

describe('version parsing', () => {
  it('strips a leading v, trims, pads to three parts and drops leading zeros', () => {
    expect(parseVersion('v1.2.3')).toMatchObject({ major: 1, minor: 2, patch: 3 });
    expect(parseVersion('3.08')).toMatchObject({ major: 3, minor: 8, patch: 0 });
    expect(parseVersion(' 2 ')).toMatchObject({ major: 2, minor: 0, patch: 0 });
    expect(parseVersion('1.2.3-beta.1+build.7')).toMatchObject({ pre: ['beta', '1'], build: ['build', '7'] });
    expect(parseVersion(4)).toMatchObject({ major: 4, minor: 0, patch: 0 });
  });

  it('rejects garbage', () => {
    for (const text of ['abc', '1.2.3.4', '1..2', '', '1.2.x', '1.2.3-01']) expect(parseVersion(text), text).toBeNull();
    expect(parseVersion(null)).toBeNull();
  });

  it('orders pre-releases by SemVer precedence, before the release', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let i = 1; i < ordered.length; i++) {
      expect(compareVersions(parseVersion(ordered[i - 1])!, parseVersion(ordered[i])!), `${ordered[i - 1]} < ${ordered[i]}`).toBe(-1);
    }
  });
});

describe('semver comparison operators', () => {
  it('compares numerically, not as text', () => {
    expect(semver('semver_gt', '1.9.0', '1.10.0')).toBe(true);
    expect(semver('semver_lt', '1.10.0', '1.9.0')).toBe(true);
    expect(semver('semver_gte', '1.2.3', '1.2.3')).toBe(true);
    expect(semver('semver_lte', '1.2.3', '1.2.4')).toBe(false);
  });

  it('treats equivalent spellings as equal', () => {
    expect(semver('semver_eq', '1.2', 'v1.2.0')).toBe(true);
    expect(semver('semver_eq', '3.8.0', '3.08')).toBe(true);
    expect(semver('semver_neq', '1.2.3', '1.2.4')).toBe(true);
    expect(semver('semver_neq', '1.2.3', 'v1.2.3')).toBe(false);
  });

  it('puts pre-releases before the release', () => {
    expect(semver('semver_lt', '1.2.3', '1.2.3-alpha')).toBe(true);
    expect(semver('semver_gt', '1.2.3-alpha', '1.2.3')).toBe(true);
  });

  it('compares build metadata as a final tie-break, like the Rust crate', () => {
    expect(semver('semver_eq', '1.0.0+a', '1.0.0+b')).toBe(false);
    expect(semver('semver_eq', '1.0.0+a', '1.0.0+a')).toBe(true);
  });

  it('is false when either side is not a version, for every operator', () => {
    for (const operator of ['semver_eq', 'semver_neq', 'semver_gt', 'semver_lt', 'semver_tilde', 'semver_caret', 'semver_wildcard']) {
      expect(semver(operator, '1.0.0', 'not-a-version'), operator).toBe(false);
      expect(semver(operator, 'not-a-version', '1.0.0'), operator).toBe(false);
    }
    expect(matchProperty({ key: 'v', type: 'person', operator: 'semver_gt', value: '1.0.0' }, {}, env)).toBe(false);
  });
});

describe('semver requirement operators', () => {
  it('tilde allows patch updates only', () => {
    expect(semver('semver_tilde', '1.2.3', '1.2.9')).toBe(true);
    expect(semver('semver_tilde', '1.2.3', '1.2.2')).toBe(false);
    expect(semver('semver_tilde', '1.2.3', '1.3.0')).toBe(false);
    expect(semver('semver_tilde', '1.2', '1.2.0')).toBe(true);
  });

  it('caret allows updates that keep the left-most non-zero part', () => {
    expect(semver('semver_caret', '1.2.3', '1.9.0')).toBe(true);
    expect(semver('semver_caret', '1.2.3', '2.0.0')).toBe(false);
    expect(semver('semver_caret', '0.2.3', '0.2.9')).toBe(true);
    expect(semver('semver_caret', '0.2.3', '0.3.0')).toBe(false);
    expect(semver('semver_caret', '0.0.3', '0.0.3')).toBe(true);
    expect(semver('semver_caret', '0.0.3', '0.0.4')).toBe(false);
  });

  it('wildcards match the fixed prefix', () => {
    expect(semver('semver_wildcard', '1.*', '1.9.9')).toBe(true);
    expect(semver('semver_wildcard', '1.*.*', '2.0.0')).toBe(false);
    expect(semver('semver_wildcard', '1.2.*', '1.2.7')).toBe(true);
    expect(semver('semver_wildcard', '1.2.*', '1.3.0')).toBe(false);
    expect(semver('semver_wildcard', '3.08.*', '3.8.1')).toBe(true);
    expect(semver('semver_wildcard', '*', '5.0.0')).toBe(true);
    expect(semver('semver_wildcard', '1.*.3', '1.2.3')).toBe(false); // invalid pattern
  });

  it('a wildcard pattern without a wildcard is a Cargo caret requirement', () => {
    expect(semver('semver_wildcard', '1.2.3', '1.4.0')).toBe(true);
    expect(semver('semver_wildcard', '1', '1.9.0')).toBe(true);
    expect(semver('semver_wildcard', '0.0', '0.0.7')).toBe(true);
    expect(semver('semver_wildcard', '0.0', '0.1.0')).toBe(false);
  });

  it('lets pre-releases satisfy only requirements naming the same version with a pre-release', () => {
    expect(semver('semver_wildcard', '*', '5.0.0-beta')).toBe(false);
    expect(semver('semver_caret', '1.2.3', '1.3.0-beta')).toBe(false);
    expect(semver('semver_tilde', '1.2.3-beta', '1.2.3-beta.2')).toBe(true);
    expect(semver('semver_tilde', '1.2.3-beta', '1.2.5')).toBe(true);
    expect(semver('semver_tilde', '1.2.3-beta', '1.2.4-alpha')).toBe(false);
    expect(semver('semver_tilde', '1.2.3-beta', '1.2.3-alpha')).toBe(false);
  });
});
