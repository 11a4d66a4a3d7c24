/**
 * Preparing an event keeps GeoIP's additions out of its objects (core/geoip-json.ts, person
 * updates with overlays). What is stored and applied must be what merging them in gives: the
 * reference below is the merge, step by step, with the pure functions PostHog's rules are written
 * in (applyGeoipProperties and the rest), over a realistic stream and hostile cases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGeoip, type GeoipService } from '../../src/geoip/geoip-service.js';
import {
  addRequestContext,
  applyGeoipProperties,
  applyPersonModeToProperties,
  computePersonPropertyChanges,
  extractPersonPropertyUpdate,
  normalizePersonProperties,
  propertiesForNewPerson,
  withoutIp,
  type PersonPropertyUpdate,
  type Properties,
} from '../../src/ingestion/core/index.js';
import type { QueuedEvent } from '../../src/ingestion/queue.js';
import { wellFormedJson } from '../../src/lib/well-formed.js';
import { prepareQueuedEvent, ReceiptClock, type PreparedEvent } from '../../src/ingestion/worker/prepare.js';
import { realisticWorkload } from '../../bench/workload.js';

let geoip: GeoipService;
beforeAll(async () => {
  geoip = await openGeoip();
});
afterAll(() => geoip.close());

const NOW = '2026-03-01T12:00:00.000Z';
const LOCATED = '80.156.0.1';

function queued(overrides: Partial<QueuedEvent>): QueuedEvent {
  return {
    uuid: '0190f2b4-0000-7000-8000-000000000001',
    event: 'clicked',
    distinct_id: 'd-1',
    properties: {},
    now: NOW,
    ip: LOCATED,
    ...overrides,
  };
}

/** The event as stored and its person update, GeoIP merged into the objects (the reference). */
function merged(
  event: QueuedEvent,
  mode: PreparedEvent['mode'],
  anonymizeIps: boolean,
): { properties: Properties; update: PersonPropertyUpdate | undefined } {
  const copy = JSON.parse(JSON.stringify(event)) as QueuedEvent;
  let properties = normalizePersonProperties({
    event: copy.event,
    properties: copy.properties,
    set: copy.set,
    setOnce: copy.set_once,
    unset: copy.unset,
  });
  addRequestContext(properties, copy.ip, copy.sent_at);
  properties = applyGeoipProperties(properties, typeof properties.$ip === 'string' ? geoip.lookup(properties.$ip.trim()) : null);
  if (anonymizeIps) properties = withoutIp(properties);
  const update = mode === 'process' ? extractPersonPropertyUpdate({ event: copy.event, properties }) : undefined;
  applyPersonModeToProperties(properties, copy.event, mode as 'process');
  // As stored: JSON with NUL and lone surrogates made U+FFFD (lib/well-formed.ts).
  return { properties: JSON.parse(wellFormedJson(JSON.stringify(properties))) as Properties, update };
}

/** The update with its overlays applied, as objects. */
function flattened(update: PersonPropertyUpdate): { set: Properties; setOnce: Properties; unset: string[] } {
  return { set: { ...update.set, ...update.setOverlay }, setOnce: { ...update.setOnce, ...update.setOnceOverlay }, unset: update.unset };
}

/** Persons the update meets: none yet, one GeoIP placed elsewhere, one with the client's keys. */
const PERSONS: Properties[] = [
  {},
  { $geoip_city_name: 'Elsewhere', $initial_geoip_city_name: 'Elsewhere', $geoip_postal_code: '1', plan: 'free' },
  { plan: 'pro', $current_url: 'https://example.com/', $initial_browser: 'Chrome', email: 'a@example.com' },
];

function expectSameAsMerged(event: QueuedEvent, anonymizeIps = false): PreparedEvent {
  const prepared = prepareQueuedEvent(JSON.parse(JSON.stringify(event)) as QueuedEvent, { geoip, anonymizeIps, clock: new ReceiptClock() });
  const label = JSON.stringify(event).slice(0, 200);
  if (prepared.mode === 'drop') return prepared;
  const reference = merged(event, prepared.mode, anonymizeIps);
  const stored = JSON.parse(prepared.propertiesJson) as Properties;
  expect(stored, label).toEqual(reference.properties);
  // No key twice: written again from its value, the JSON is exactly as long.
  expect(JSON.stringify(stored).length, label).toBe(prepared.propertiesJson.length);
  if (reference.update) {
    const update = flattened(prepared.update);
    expect(update, label).toEqual(reference.update);
    // The same keys in the same order as the merged objects (a new person's keys are written in it).
    expect(Object.keys(update.set), label).toEqual(Object.keys(reference.update.set));
    expect(Object.keys(update.setOnce), label).toEqual(Object.keys(reference.update.setOnce));
    const created = propertiesForNewPerson(prepared.update, event.uuid);
    const createdReference = propertiesForNewPerson(reference.update, event.uuid);
    expect(created, label).toEqual(createdReference);
    expect(Object.keys(created), label).toEqual(Object.keys(createdReference));
    for (const person of PERSONS) {
      const changes = computePersonPropertyChanges(person, prepared.update, event.event);
      const expected = computePersonPropertyChanges(person, reference.update, event.event);
      expect(changes, label).toEqual(expected);
      expect(Object.keys(changes.toSet), label).toEqual(Object.keys(expected.toSet));
    }
  } else {
    expect(prepared.update.setOverlay, label).toBeUndefined();
  }
  return prepared;
}

describe('GeoIP kept out of the prepared objects', () => {
  it('stores and applies what merging it in gives, over a realistic stream', () => {
    let located = 0;
    for (const row of realisticWorkload(1, 1500)) {
      const prepared = expectSameAsMerged(row.payload);
      if (prepared.geoipAddress !== undefined) located++;
    }
    // Most of the stream's visitors are placed: the overlays were exercised, not skipped.
    expect(located).toBeGreaterThan(750);
  });

  it('lets GeoIP win over the keys a client sends itself, in place', () => {
    const prepared = expectSameAsMerged(
      queued({
        event: '$pageview',
        properties: {
          $geoip_country_code: 'XX',
          $set: { $geoip_city_name: 'Client city', plan: 'pro' },
          $set_once: { $initial_geoip_city_name: 'First', signup: 'web' },
        },
      }),
    );
    expect(JSON.parse(prepared.propertiesJson).$geoip_country_code).toBe('DE');
    expect(flattened(prepared.update).set.$geoip_city_name).not.toBe('Client city');
  });

  it.each([
    ['a $set that is not an object', { $set: 'x', $set_once: [1, 2] }],
    ['no $set at all', {}],
    [
      'keys named like Object.prototype members',
      JSON.parse('{"__proto__": {"x": 1}, "$set": {"__proto__": {"y": 2}, "constructor": 1}}') as Properties,
    ],
    ['ill-formed text', { name: 'nul\u0000 and lone \ud800', $set: { 'k\udc00': 'v\u0000' } }],
    ['$unset and a top-level $set', { $unset: ['plan'] }],
  ])('matches the merge for %s', (_name, properties) => {
    expectSameAsMerged(queued({ event: '$pageview', properties: properties as Properties, set: { top: 1 }, set_once: { first: 2 } }));
  });

  it.each([
    ['a personless event', { event: 'viewed', properties: { $process_person_profile: false, $set: { a: 1 } } }],
    ['an $exception (person only read)', { event: '$exception', properties: { $set: { a: 1 } } }],
    ['a $groupidentify', { event: '$groupidentify', properties: { $group_type: 'company', $group_key: 'acme', $set: { a: 1 } } }],
    [
      'an $identify',
      { event: '$identify', distinct_id: 'user', properties: { $anon_distinct_id: 'anon', $set: { email: 'a@example.com' } } },
    ],
    ['GeoIP turned off by the client', { event: 'viewed', properties: { $geoip_disable: true, $set: { a: 1 } } }],
    ['an address GeoIP cannot place', { event: 'viewed', ip: '10.0.0.1', properties: { $set: { a: 1 } } }],
  ])('matches the merge for %s', (_name, overrides) => {
    expectSameAsMerged(queued(overrides as Partial<QueuedEvent>));
  });

  it('stores GeoIP keys on events without a person step, but no $set or $set_once', () => {
    for (const overrides of [
      { event: 'viewed', properties: { $process_person_profile: false } },
      { event: '$exception', properties: {} },
    ]) {
      const stored = JSON.parse(expectSameAsMerged(queued(overrides as Partial<QueuedEvent>)).propertiesJson);
      expect(stored.$geoip_country_code).toBe('DE');
      expect(stored.$set).toBeUndefined();
      expect(stored.$set_once).toBeUndefined();
    }
  });

  it('matches the merge in an environment that anonymises addresses', () => {
    const prepared = expectSameAsMerged(queued({ event: '$pageview', properties: { $set: { plan: 'pro' } } }), true);
    expect(JSON.parse(prepared.propertiesJson).$ip).toBeUndefined();
    expect(JSON.parse(prepared.propertiesJson).$geoip_country_code).toBe('DE');
  });
});
