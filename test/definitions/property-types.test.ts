import { describe, expect, it } from 'vitest';
import { definitionsOf, detectPropertyType, parseDefinitions, SentDefinitions } from '../../src/definitions/core/property-types.js';
import { readPropertyDefinitionParams } from '../../src/definitions/core/list-params.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

describe('property types as PostHog infers them', () => {
  it('reads numbers, booleans, dates and text', () => {
    expect(detectPropertyType('price', 9.5, NOW)).toBe('Numeric');
    expect(detectPropertyType('count', 3, NOW)).toBe('Numeric');
    expect(detectPropertyType('paid', true, NOW)).toBe('Boolean');
    expect(detectPropertyType('paid', ' TRUE ', NOW)).toBe('Boolean');
    expect(detectPropertyType('paid', 'True', NOW)).toBe('String');
    expect(detectPropertyType('when', '2024-03-01', NOW)).toBe('DateTime');
    expect(detectPropertyType('when', '2024-03-01T10:00:00Z', NOW)).toBe('DateTime');
    expect(detectPropertyType('plan', 'pro', NOW)).toBe('String');
    expect(detectPropertyType('plan', '42', NOW)).toBe('String');
    expect(detectPropertyType('nested', { a: 1 }, NOW)).toBeNull();
    expect(detectPropertyType('list', [1], NOW)).toBeNull();
    expect(detectPropertyType('none', null, NOW)).toBeNull();
  });

  it('takes a recent unix timestamp as a date only under a time-like name', () => {
    const recent = Math.floor(NOW / 1000) - 60;
    expect(detectPropertyType('created_at', recent, NOW)).toBe('DateTime');
    expect(detectPropertyType('signupTimestamp', recent, NOW)).toBe('DateTime');
    expect(detectPropertyType('score', recent, NOW)).toBe('Numeric');
    // Older than six months: a number.
    expect(detectPropertyType('created_at', recent - 200 * 86_400, NOW)).toBe('Numeric');
  });

  it('keeps utm, feature flag and survey properties text', () => {
    expect(detectPropertyType('utm_campaign', 2024, NOW)).toBe('String');
    expect(detectPropertyType('$initial_utm_source', 1, NOW)).toBe('String');
    expect(detectPropertyType('$feature/beta', true, NOW)).toBe('String');
    expect(detectPropertyType('$feature_flag_response', false, NOW)).toBe('String');
    expect(detectPropertyType('$survey_response_2', 5, NOW)).toBe('String');
  });
});

describe('the definitions an event carries', () => {
  it('lists event and person keys, without the special ones', () => {
    const text = definitionsOf(
      'paid',
      { amount: 5, $set: { plan: 'x' }, $groups: {}, $group_0: 'a', 'odd\nkey': 1 },
      { event: [], person: [{ plan: 'pro' }, { first_seen: '2024-01-01' }] },
      NOW,
    );
    expect(parseDefinitions(text)).toEqual([
      { kind: 'event', type: 'Numeric', key: 'amount' },
      { kind: 'person', type: 'String', key: 'plan' },
      { kind: 'person', type: 'DateTime', key: 'first_seen' },
    ]);
  });

  it('gives a $groupidentify only its group properties', () => {
    const text = definitionsOf(
      '$groupidentify',
      { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 10 }, other: 1 },
      { event: [], person: [] },
      NOW,
    );
    expect(parseDefinitions(text)).toEqual([{ kind: 'group', type: 'Numeric', key: 'seats' }]);
  });

  it('gives nothing for the events PostHog skips', () => {
    expect(definitionsOf('$$plugin_metrics', { a: 1 }, { event: [], person: [] }, NOW)).toBe('');
  });
});

describe('the keys a prepare thread sent lately', () => {
  const none = { event: [], person: [] };
  it('sends each key of a scope once an hour', () => {
    const sent = new SentDefinitions();
    const at = (clockMs: number, teamId = 1) => ({ sent, teamId, clockMs });
    expect(parseDefinitions(definitionsOf('e', { a: 1, b: 'x' }, none, NOW, at(NOW))).map((d) => d.key)).toEqual(['a', 'b']);
    // Only the new key; another event or team is another scope.
    expect(parseDefinitions(definitionsOf('e', { a: 2, c: true }, none, NOW, at(NOW + 1000))).map((d) => d.key)).toEqual(['c']);
    expect(definitionsOf('e', { a: 2, c: true }, none, NOW, at(NOW + 2000))).toBe('');
    expect(parseDefinitions(definitionsOf('f', { a: 1 }, none, NOW, at(NOW))).map((d) => d.key)).toEqual(['a']);
    expect(parseDefinitions(definitionsOf('e', { a: 1 }, none, NOW, at(NOW, 2))).map((d) => d.key)).toEqual(['a']);
    // The next hour, all again.
    expect(parseDefinitions(definitionsOf('e', { a: 1 }, none, NOW, at(NOW + 3_600_000))).map((d) => d.key)).toEqual(['a']);
  });
});

describe('property_definitions parameters', () => {
  it('refuses an unknown type, a group without its index and bad JSON', () => {
    expect(readPropertyDefinitionParams({ type: 'cohort' })).toMatchObject({ ok: false, attr: 'type' });
    expect(readPropertyDefinitionParams({ type: 'group' })).toMatchObject({ ok: false, attr: 'group_type_index' });
    expect(readPropertyDefinitionParams({ type: 'group', group_type_index: '5' })).toMatchObject({ ok: false, attr: 'group_type_index' });
    expect(readPropertyDefinitionParams({ event_names: '[1]' })).toMatchObject({ ok: false, attr: 'event_names' });
    expect(readPropertyDefinitionParams({ event_names: 'nope' })).toMatchObject({ ok: false, attr: 'event_names' });
    expect(readPropertyDefinitionParams({ is_numerical: 'maybe' })).toMatchObject({ ok: false, attr: 'is_numerical' });
  });

  it('reads a group type index and hides the ingestion-only names', () => {
    const result = readPropertyDefinitionParams({ type: 'group', group_type_index: '2', event_names: '["a"]' });
    expect(result).toMatchObject({ ok: true, value: { type: 3, groupTypeIndex: 2, eventNames: ['a'] } });
    expect(result.ok && result.value.excluded).toContain('$set');
  });
});
