import { describe, expect, it } from 'vitest';

import {
  CAMPAIGN_PROPERTIES,
  EVENT_TO_PERSON_PROPERTIES,
  type PersonPropertyUpdate,
  decidePersonProcessing,
  extractPersonPropertyUpdate,
  liftInitialAndCampaignProperties,
  normalizePersonProperties,
} from '../../src/ingestion/core/person-properties.js';
import {
  applyPersonPropertyUpdate,
  computePersonPropertyChanges,
  isVolatilePersonProperty,
  jsonEqual,
  propertiesForNewPerson,
} from '../../src/ingestion/core/person-property-changes.js';

const update = (partial: Partial<PersonPropertyUpdate>): PersonPropertyUpdate => ({ set: {}, setOnce: {}, unset: [], ...partial });

describe('decidePersonProcessing', () => {
  it('processes persons by default and when the flag is true', () => {
    expect(decidePersonProcessing({ event: 'e', properties: {} })).toEqual({ kind: 'process', warnings: [] });
    expect(decidePersonProcessing({ event: 'e', properties: { $process_person_profile: true } }).kind).toBe('process');
  });

  it('makes events personless when the flag is false or the project opts out', () => {
    expect(decidePersonProcessing({ event: '$pageview', properties: { $process_person_profile: false } }).kind).toBe('personless');
    expect(decidePersonProcessing({ event: '$pageview', properties: {} }, { projectOptOut: true }).kind).toBe('personless');
  });

  it.each([['$identify'], ['$create_alias'], ['$merge_dangerously'], ['$groupidentify']])('drops %s when personless', (event) => {
    const decision = decidePersonProcessing({ event, uuid: 'u-1', distinctId: 'd-1', properties: { $process_person_profile: false } });
    expect(decision.kind).toBe('drop');
    // PostHog normalizeProcessPersonFlagStep's details.
    expect(decision.warnings).toEqual([
      { type: 'invalid_event_when_process_person_profile_is_false', details: { eventUuid: 'u-1', event, distinctId: 'd-1' } },
    ]);
  });

  it('ignores a non-boolean flag with a warning', () => {
    const decision = decidePersonProcessing({ event: 'e', properties: { $process_person_profile: 'false' } });
    expect(decision.kind).toBe('process');
    expect(decision.warnings[0]!.type).toBe('invalid_process_person_profile');
  });
});

describe('normalizePersonProperties', () => {
  it('merges top-level $set / $set_once into properties, top-level winning', () => {
    const properties = normalizePersonProperties({
      event: '$identify',
      properties: { $set: { a: 'inner', b: 'inner' }, $set_once: { c: 'inner' } },
      set: { a: 'top' },
      setOnce: { c: 'top', d: 'top' },
    });
    expect(properties.$set).toEqual({ a: 'top', b: 'inner' });
    expect(properties.$set_once).toEqual({ c: 'top', d: 'top' });
  });

  it('merges top-level $unset with properties.$unset', () => {
    expect(normalizePersonProperties({ event: '$set', properties: { $unset: ['a'] }, unset: ['b'] }).$unset).toEqual(['a', 'b']);
    expect(normalizePersonProperties({ event: '$set', properties: {}, unset: { c: 1 } }).$unset).toEqual(['c']);
  });

  it('does not modify the input', () => {
    const properties = { $set: { a: 1 }, utm_source: 'x' };
    normalizePersonProperties({ event: 'e', properties, set: { b: 2 } });
    expect(properties).toEqual({ $set: { a: 1 }, utm_source: 'x' });
  });

  it('does not lift properties of $snapshot and $performance_event', () => {
    for (const event of ['$snapshot', '$performance_event']) {
      expect(normalizePersonProperties({ event, properties: { $browser: 'Chrome' } })).toEqual({ $browser: 'Chrome' });
    }
  });

  it('lifts properties for ordinary events', () => {
    expect(normalizePersonProperties({ event: '$pageview', properties: { $browser: 'Chrome' } }).$set).toEqual({ $browser: 'Chrome' });
  });
});

describe('liftInitialAndCampaignProperties', () => {
  it('adds $set and $initial_* $set_once for browser, URL and campaign properties', () => {
    const result = liftInitialAndCampaignProperties({
      $browser: 'Chrome',
      $current_url: 'https://example.com/a',
      $referring_domain: '$direct',
      utm_source: 'newsletter',
      gclid: 'g1',
      other: 'not lifted',
    });
    expect(result.$set).toEqual({
      $browser: 'Chrome',
      $current_url: 'https://example.com/a',
      $referring_domain: '$direct',
      utm_source: 'newsletter',
      gclid: 'g1',
    });
    expect(result.$set_once).toEqual({
      $initial_browser: 'Chrome',
      $initial_current_url: 'https://example.com/a',
      $initial_referring_domain: '$direct',
      $initial_utm_source: 'newsletter',
      $initial_gclid: 'g1',
    });
    expect(result.other).toBe('not lifted');
  });

  it("lets the event's own $set / $set_once win over lifted values", () => {
    const result = liftInitialAndCampaignProperties({
      $browser: 'Chrome',
      $set: { $browser: 'Mine' },
      $set_once: { $initial_browser: 'First' },
    });
    expect(result.$set).toEqual({ $browser: 'Mine' });
    expect(result.$set_once).toEqual({ $initial_browser: 'First' });
  });

  it('keeps nulls in $set but never writes them to $set_once', () => {
    const result = liftInitialAndCampaignProperties({ utm_source: null, gclid: null });
    expect(result.$set).toEqual({ utm_source: null, gclid: null });
    expect(result.$set_once).toEqual({});
  });

  it('skips the host $os / $os_version of server SDKs', () => {
    const result = liftInitialAndCampaignProperties({ $is_server: true, $os: 'Linux', $os_version: '6.1', utm_source: 'x' });
    expect(result.$set).toEqual({ utm_source: 'x' });
    expect(result.$set_once).toEqual({ $initial_utm_source: 'x' });
    expect(liftInitialAndCampaignProperties({ $is_server: true, $os: 'Linux' })).toEqual({ $is_server: true, $os: 'Linux' });
  });

  it('treats $os_name as an alias of $os', () => {
    const result = liftInitialAndCampaignProperties({ $os_name: 'iOS' });
    expect(result.$set).toEqual({ $os: 'iOS' });
    expect(result.$set_once).toEqual({ $initial_os: 'iOS' });
    const nullOs = liftInitialAndCampaignProperties({ $os: null, $os_name: 'Android' });
    expect(nullOs.$set).toEqual({ $os: null });
    expect(nullOs.$set_once).toEqual({ $initial_os: 'Android' });
    const both = liftInitialAndCampaignProperties({ $os: 'Mac OS X', $os_name: 'ignored' });
    expect(both.$set).toEqual({ $os: 'Mac OS X' });
  });

  it('replaces malformed $set / $set_once when lifting', () => {
    const result = liftInitialAndCampaignProperties({ $set: 'oops', $set_once: 5, $pathname: '/a' });
    expect(result.$set).toEqual({ $pathname: '/a' });
    expect(result.$set_once).toEqual({ $initial_pathname: '/a' });
  });

  it('returns the same object when nothing is lifted', () => {
    const properties = { a: 1 };
    expect(liftInitialAndCampaignProperties(properties)).toBe(properties);
  });

  it('covers the full PostHog lists', () => {
    expect(EVENT_TO_PERSON_PROPERTIES.has('$raw_user_agent')).toBe(true);
    expect(EVENT_TO_PERSON_PROPERTIES.has('$viewport_width')).toBe(true);
    for (const key of ['utm_name', 'gad_source', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'twclid', 'li_fat_id', 'ttclid', '_kx']) {
      expect(CAMPAIGN_PROPERTIES.has(key)).toBe(true);
    }
    const result = liftInitialAndCampaignProperties({ $app_version: '1.0', $screen_width: 390 });
    expect(result.$set_once).toEqual({ $initial_app_version: '1.0', $initial_screen_width: 390 });
  });
});

describe('lift key order', () => {
  it('fills $set and $set_once in the lifted-property order, whatever the order of the event keys', () => {
    const lifted = liftInitialAndCampaignProperties({
      utm_source: 'news',
      $os: 'Linux',
      $browser: 'Firefox',
      $current_url: 'https://x.test/',
      other: 1,
    });
    expect(Object.keys(lifted.$set as object)).toEqual(['$browser', '$current_url', '$os', 'utm_source']);
    expect(Object.keys(lifted.$set_once as object)).toEqual([
      '$initial_browser',
      '$initial_current_url',
      '$initial_os',
      '$initial_utm_source',
    ]);
    expect(Object.keys(lifted)).toEqual(['utm_source', '$os', '$browser', '$current_url', 'other', '$set', '$set_once']);
  });

  it('lifts $os_name in the place of $os, once, and leaves an event without lifted keys as it is', () => {
    const lifted = liftInitialAndCampaignProperties({ $os_name: 'iOS', $browser: 'Safari' });
    expect(lifted.$set).toEqual({ $browser: 'Safari', $os: 'iOS' });
    expect(Object.keys(lifted.$set_once as object)).toEqual(['$initial_browser', '$initial_os']);
    const plain = { a: 1, $set: { b: 2 } };
    expect(liftInitialAndCampaignProperties(plain)).toBe(plain);
  });
});

describe('extractPersonPropertyUpdate', () => {
  it('reads $set, $set_once and $unset (array or object)', () => {
    expect(
      extractPersonPropertyUpdate({ event: '$set', properties: { $set: { a: 1 }, $set_once: { b: 2 }, $unset: ['c', 3, 'd'] } }),
    ).toEqual({
      set: { a: 1 },
      setOnce: { b: 2 },
      unset: ['c', 'd'],
    });
    expect(extractPersonPropertyUpdate({ event: '$set', properties: { $unset: { e: null } } }).unset).toEqual(['e']);
  });

  it('ignores malformed fields', () => {
    expect(extractPersonPropertyUpdate({ event: 'e', properties: { $set: [1], $set_once: 'x', $unset: 'c' } })).toEqual(update({}));
  });

  it.each([['$exception'], ['$$heatmap'], ['$groupidentify']])('never updates persons for %s', (event) => {
    expect(extractPersonPropertyUpdate({ event, properties: { $set: { a: 1 } } })).toEqual(update({}));
  });
});

describe('applyPersonPropertyUpdate', () => {
  it('writes $set_once only for missing keys; a stored null counts as present', () => {
    const first = applyPersonPropertyUpdate({}, update({ setOnce: { a: 1 } }), '$set');
    expect(first).toEqual({ properties: { a: 1 }, changed: true, shouldPersist: true });
    const second = applyPersonPropertyUpdate(first.properties, update({ setOnce: { a: 2 } }), '$set');
    expect(second).toEqual({ properties: { a: 1 }, changed: false, shouldPersist: false });
    expect(applyPersonPropertyUpdate({ a: null }, update({ setOnce: { a: 2 } }), '$set').changed).toBe(false);
  });

  it('overwrites with $set, and $set beats $set_once in the same event', () => {
    expect(applyPersonPropertyUpdate({ a: 1 }, update({ set: { a: 3 } }), '$set').properties).toEqual({ a: 3 });
    expect(applyPersonPropertyUpdate({}, update({ set: { a: 'set' }, setOnce: { a: 'once' } }), '$identify').properties).toEqual({
      a: 'set',
    });
  });

  it('removes $unset keys the person had; unknown keys change nothing', () => {
    expect(applyPersonPropertyUpdate({ a: 1, b: 2 }, update({ unset: ['a'] }), '$set')).toEqual({
      properties: { b: 2 },
      changed: true,
      shouldPersist: true,
    });
    expect(applyPersonPropertyUpdate({ b: 2 }, update({ unset: ['a'] }), '$set').changed).toBe(false);
  });

  it('applies $unset after $set, but only to keys the person had before the event (as PostHog)', () => {
    expect(applyPersonPropertyUpdate({ a: 1 }, update({ set: { a: 2 }, unset: ['a'] }), '$set').properties).toEqual({});
    expect(applyPersonPropertyUpdate({}, update({ set: { a: 2 }, unset: ['a'] }), '$set').properties).toEqual({ a: 2 });
  });

  it('reports no change for equal values, comparing objects structurally', () => {
    const current = { a: { x: [1, 2], y: 'z' } };
    const result = applyPersonPropertyUpdate(current, update({ set: { a: { y: 'z', x: [1, 2] } } }), '$set');
    expect(result.changed).toBe(false);
    expect(result.properties).toBe(current);
    expect(applyPersonPropertyUpdate(current, update({ set: { a: { x: [2, 1], y: 'z' } } }), '$set').changed).toBe(true);
  });

  it('does not modify the current properties', () => {
    const current = { a: 1 };
    applyPersonPropertyUpdate(current, update({ set: { a: 2, b: 3 }, unset: ['a'] }), '$set');
    expect(current).toEqual({ a: 1 });
  });

  it('writes __proto__ keys as plain data, never touching prototypes', () => {
    const set = JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as Record<string, unknown>;
    const result = applyPersonPropertyUpdate({}, update({ set, setOnce: JSON.parse('{"__proto__":{"x":1}}') }), '$set');
    expect(Object.getPrototypeOf(result.properties)).toBe(Object.prototype);
    expect(Object.hasOwn(result.properties, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(result.properties.ok).toBe(1);
  });

  describe("PostHog's write filter (shouldPersist)", () => {
    it('does not persist a lone change of a volatile existing key on ordinary events', () => {
      const result = applyPersonPropertyUpdate({ $current_url: '/a' }, update({ set: { $current_url: '/b' } }), '$pageview');
      expect(result.changed).toBe(true);
      expect(result.properties).toEqual({ $current_url: '/b' });
      expect(result.shouldPersist).toBe(false);
      expect(
        applyPersonPropertyUpdate({ $geoip_postal_code: '1' }, update({ set: { $geoip_postal_code: '2' } }), '$pageview').shouldPersist,
      ).toBe(false);
    });

    it('persists when a volatile key is new, when a non-volatile key changes, or for person events', () => {
      expect(applyPersonPropertyUpdate({}, update({ set: { $current_url: '/b' } }), '$pageview').shouldPersist).toBe(true);
      expect(
        applyPersonPropertyUpdate({ $current_url: '/a', plan: 'a' }, update({ set: { $current_url: '/b', plan: 'b' } }), '$pageview')
          .shouldPersist,
      ).toBe(true);
      expect(applyPersonPropertyUpdate({ $current_url: '/a' }, update({ set: { $current_url: '/b' } }), '$identify').shouldPersist).toBe(
        true,
      );
      expect(
        applyPersonPropertyUpdate({ $geoip_city_name: 'A' }, update({ set: { $geoip_city_name: 'B' } }), '$pageview').shouldPersist,
      ).toBe(true);
    });

    it('classifies volatile keys', () => {
      expect(isVolatilePersonProperty('$browser')).toBe(true);
      expect(isVolatilePersonProperty('utm_source')).toBe(true);
      expect(isVolatilePersonProperty('$geoip_latitude')).toBe(true);
      expect(isVolatilePersonProperty('$geoip_country_name')).toBe(false);
      expect(isVolatilePersonProperty('$initial_browser')).toBe(false);
      expect(isVolatilePersonProperty('email')).toBe(false);
    });
  });

  it('computePersonPropertyChanges lists exactly what changes', () => {
    expect(
      computePersonPropertyChanges(
        { a: 1, b: 2, c: 3 },
        update({ set: { a: 1, b: 5 }, setOnce: { c: 9, d: 4 }, unset: ['c', 'x'] }),
        '$set',
      ),
    ).toEqual({
      toSet: { b: 5, d: 4 },
      toUnset: ['c'],
      hasChanges: true,
      shouldPersist: true,
    });
  });
});

describe('propertiesForNewPerson and jsonEqual', () => {
  it('creates persons from $set_once overlaid by $set, with the uuid of the event that created them', () => {
    // PostHog person-create-service.ts: {...propertiesOnce, ...properties, $creator_event_uuid}.
    expect(propertiesForNewPerson(update({ set: { a: 'set' }, setOnce: { a: 'once', b: 'once' }, unset: ['b'] }), 'e-1')).toEqual({
      a: 'set',
      b: 'once',
      $creator_event_uuid: 'e-1',
    });
    expect(propertiesForNewPerson(update({ set: { $creator_event_uuid: 'client' } }), 'e-2').$creator_event_uuid).toBe('e-2');
  });

  it('compares JSON values', () => {
    expect(jsonEqual(1, 1)).toBe(true);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
    expect(jsonEqual([1, [2]], [1, [2]])).toBe(true);
    expect(jsonEqual('1', 1)).toBe(false);
  });
});
