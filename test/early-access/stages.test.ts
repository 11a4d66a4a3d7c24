/** The pure rules of early access features: stages, enrollment filters, slugs and URLs. */
import { describe, expect, it } from 'vitest';
import {
  enrollmentFilters,
  isValidUrl,
  newFlagFilters,
  pyTruthy,
  slugify,
  stageChangeFilters,
  STAGES,
} from '../../src/early-access/core/stages.js';

const groups = [{ properties: [], rollout_percentage: 0 }];

describe('stageChangeFilters', () => {
  it('covers every pair of stages', () => {
    const active = new Set(['alpha', 'beta', 'general-availability']);
    for (const from of STAGES) {
      expect(stageChangeFilters({ groups }, from, undefined, false)).toBeUndefined();
      for (const to of STAGES) {
        const plan = stageChangeFilters({ groups, super_groups: [{}] }, from, to, false);
        if (!active.has(from) && active.has(to)) expect(plan).toEqual({ filters: { groups, feature_enrollment: true }, validated: true });
        else if (!active.has(to)) expect(plan).toEqual({ filters: { groups, feature_enrollment: null }, validated: false });
        else expect(plan).toBeUndefined();
      }
    }
  });

  it('rolls out to everyone on general availability with rollout_to_all', () => {
    expect(stageChangeFilters({ groups, payloads: { true: '1' } }, 'beta', 'general-availability', true)).toEqual({
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '1' }, feature_enrollment: null },
      validated: true,
    });
    // Already there: nothing changes.
    expect(stageChangeFilters({ groups }, 'general-availability', 'general-availability', true)).toBeUndefined();
  });

  it('builds new flags and enrollment filters', () => {
    expect(newFlagFilters('concept')).toEqual({ groups: [{ properties: [], rollout_percentage: 0, variant: null }] });
    expect(newFlagFilters('beta').feature_enrollment).toBe(true);
    expect(enrollmentFilters({ a: 1, super_groups: [], feature_enrollment: true }, null)).toEqual({ a: 1, feature_enrollment: null });
  });
});

describe('helpers', () => {
  it("slugifies as Django's slugify", () => {
    expect(slugify('Hick bondoogling')).toBe('hick-bondoogling');
    expect(slugify('  Crème brûlée -- déjà vu!  ')).toBe('creme-brulee-deja-vu');
    expect(slugify('__under_score__')).toBe('under_score');
    expect(slugify('日本語')).toBe('');
  });

  it("accepts URLs as Django's URLValidator", () => {
    for (const ok of ['https://example.com', 'http://localhost:8000/x?y=1', 'ftp://1.2.3.4/f', 'https://[::1]/', 'https://a.b.co/#x']) {
      expect(isValidUrl(ok), ok).toBe(true);
    }
    for (const bad of [
      'example.com',
      'javascript:alert(1)',
      'https://exa mple.com',
      'https://nodot',
      'http://256.1.1.1',
      'https://-a.com',
    ]) {
      expect(isValidUrl(bad), bad).toBe(false);
    }
  });

  it("reads Python's truthiness", () => {
    expect([true, 1, 'x', [0], { a: 1 }].every(pyTruthy)).toBe(true);
    expect([false, 0, '', [], {}, null, undefined].some(pyTruthy)).toBe(false);
  });
});
