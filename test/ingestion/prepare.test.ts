import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isUnprepared,
  prepareQueuedEvent,
  prepareRow,
  ReceiptClock,
  withGroupProperties,
  type PreparedEvent,
} from '../../src/ingestion/worker/prepare.js';
import { packReply, unpackReply } from '../../src/ingestion/worker/prepare-messages.js';
import { openGeoip, type GeoipService } from '../../src/geoip/geoip-service.js';
import type { QueuedEvent } from '../../src/ingestion/queue.js';

const NOW = '2026-03-01T12:00:00.000Z';

function queued(overrides: Partial<QueuedEvent> = {}): QueuedEvent {
  return {
    uuid: '0190f2b4-0000-7000-8000-000000000001',
    event: 'clicked',
    distinct_id: 'd-1',
    properties: {},
    now: NOW,
    ip: null,
    ...overrides,
  };
}

function prepare(event: QueuedEvent, options: { anonymizeIps?: boolean; geoip?: GeoipService } = {}): PreparedEvent {
  return prepareQueuedEvent(event, { anonymizeIps: options.anonymizeIps ?? false, geoip: options.geoip, clock: new ReceiptClock() });
}

const parsed = (prepared: PreparedEvent) => JSON.parse(prepared.propertiesJson) as Record<string, unknown>;

/** The bundled GeoLite2 database. */
let geoip: GeoipService;
beforeAll(async () => {
  geoip = await openGeoip();
});
afterAll(() => geoip.close());

describe('withGroupProperties', () => {
  it('leaves the JSON alone when the groups step added nothing', () => {
    expect(withGroupProperties('{"a":1}', false, new Map())).toBe('{"a":1}');
    expect(withGroupProperties('{"$group_0":"x"}', true, new Map())).toBe('{"$group_0":"x"}');
  });

  it('writes what JSON.stringify writes for the object with the keys set on it', () => {
    const cases: Array<[Record<string, unknown>, Array<[string, string]>]> = [
      [{}, [['$group_0', 'acme']]],
      [
        { a: 1, nested: { b: [1, '}'] } },
        [
          ['$group_1', 'k"ey'],
          ['$group_0', 'é\u2028'],
        ],
      ],
      [
        { $group_0: 'by hand', z: true },
        [
          ['$group_0', 'acme'],
          ['$group_2', 'p'],
        ],
      ],
      [{ $group_4: 'kept' }, [['$group_1', 'x']]],
    ];
    for (const [properties, added] of cases) {
      const expected = { ...properties };
      for (const [key, value] of added) expected[key] = value;
      const own = Object.keys(properties).some((key) => /^\$group_\d$/.test(key));
      expect(withGroupProperties(JSON.stringify(properties), own, new Map(added))).toBe(JSON.stringify(expected));
    }
  });
});

describe('prepareQueuedEvent', () => {
  it('resolves the timestamp, adds $ip, lifts person properties and finds the person update', () => {
    const prepared = prepare(
      queued({
        event: '$pageview',
        ip: '198.51.100.4',
        timestamp: '2026-03-01T11:59:00.000Z',
        properties: { $current_url: 'https://a.example/x', $set: { plan: 'pro' } },
      }),
    );
    expect(prepared.mode).toBe('process');
    expect(prepared.timestamp).toBe('2026-03-01T11:59:00.000Z');
    expect(parsed(prepared)).toMatchObject({
      $ip: '198.51.100.4',
      $current_url: 'https://a.example/x',
      $set: { plan: 'pro', $current_url: 'https://a.example/x' },
    });
    expect(prepared.update.set).toMatchObject({ plan: 'pro', $current_url: 'https://a.example/x' });
    expect(prepared.update.setOnce).toMatchObject({ $initial_current_url: 'https://a.example/x' });
    expect(prepared.merge).toBeUndefined();
    expect(prepared.groups).toBeUndefined();
  });

  it('uses the receipt time when the event has none, and warns of a bad one', () => {
    expect(prepare(queued()).timestamp).toBe(NOW);
    const bad = prepare(queued({ timestamp: 'not a date' }));
    expect(bad.timestamp).toBe(NOW);
    expect(bad.warnings.map((w) => w.type)).toContain('ignored_invalid_timestamp');
  });

  it('looks the address up, then drops $ip for an environment with anonymize_ips', () => {
    const located = prepare(queued({ ip: '80.156.0.1' }), { geoip: geoip });
    expect(parsed(located)).toMatchObject({ $ip: '80.156.0.1', $geoip_country_code: 'DE' });
    const anonymous = prepare(queued({ ip: '80.156.0.1' }), { geoip: geoip, anonymizeIps: true });
    expect(anonymous.anonymizeIps).toBe(true);
    expect(parsed(anonymous).$ip).toBeUndefined();
    expect(parsed(anonymous).$geoip_country_code).toBe('DE');
  });

  it('strips the person update of a personless event and drops a personless identity event', () => {
    const personless = prepare(queued({ properties: { $process_person_profile: false, $set: { a: 1 }, $unset: ['b'] } }));
    expect(personless.mode).toBe('personless');
    expect(parsed(personless)).toEqual({ $process_person_profile: false });
    expect(personless.update).toEqual({ set: {}, setOnce: {}, unset: [] });
    const dropped = prepare(queued({ event: '$identify', properties: { $process_person_profile: false, $anon_distinct_id: 'a' } }));
    expect(dropped.mode).toBe('drop');
    expect(dropped.propertiesJson).toBe('');
    expect(dropped.warnings.map((w) => w.type)).toEqual(['invalid_event_when_process_person_profile_is_false']);
  });

  it('finds merges and the groups an event names, as stored', () => {
    const identify = prepare(queued({ event: '$identify', distinct_id: 'user', properties: { $anon_distinct_id: 'anon' } }));
    expect(identify.merge).toEqual({ kind: '$identify', intoDistinctId: 'user', otherDistinctId: 'anon' });
    const group = prepare(
      queued({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: 42, $group_set: { name: 'Acme' } } }),
    );
    expect(group.groups).toEqual({ identified: { type: 'company', key: '42', set: { name: 'Acme' } }, attached: [] });
    const attached = prepare(
      queued({ properties: { $groups: { company: 'acme', team: { id: 1 }, none: null, empty: '', 'bad\u0000': 'k\ud800' } } }),
    );
    // As PostHog's addGroupProperties: every type, its value copied as it is (made well-formed).
    expect(attached.groups).toEqual({
      identified: undefined,
      attached: [
        ['company', 'acme'],
        ['team', { id: 1 }],
        ['none', null],
        ['empty', ''],
        ['bad\ufffd', 'k\ufffd'],
      ],
    });
    expect(attached.ownGroupKeys).toBe(false);
    expect(prepare(queued({ properties: { $group_2: 'x', $groups: { company: 'acme' } } })).ownGroupKeys).toBe(true);
  });

  it('copies the session id and elements chain, well-formed', () => {
    const prepared = prepare(queued({ properties: { $session_id: 's\ud800', $elements_chain: 'a:b' } }));
    expect(prepared.sessionId).toBe('s\ufffd');
    expect(prepared.elementsChain).toBe('a:b');
    expect(prepare(queued({ properties: { $session_id: 7 } })).sessionId).toBeNull();
  });

  it('prepares a deferred person update without GeoIP and without an event to store', () => {
    const prepared = prepare(queued({ person_only: true, ip: '80.156.0.1', properties: { $set: { plan: 'team' } } }), { geoip: geoip });
    expect(prepared).toMatchObject({ personOnly: true, mode: 'process', propertiesJson: '', timestamp: NOW });
    expect(prepared.update.set).toEqual({ plan: 'team' });
    expect(prepare(queued({ person_only: true, properties: { $process_person_profile: false } })).mode).toBe('drop');
  });
});

describe('prepareRow and the packing between threads', () => {
  it('says why a row cannot be prepared instead of throwing', () => {
    const row = prepareRow('{"event": "truncated', { anonymizeIps: false, clock: new ReceiptClock() });
    expect(isUnprepared(row)).toBe(true);
    expect((row as { failed: string }).failed).toMatch(/JSON/);
  });

  it('unpacks exactly what was packed', () => {
    const clock = new ReceiptClock();
    const rows = [
      prepareRow(JSON.stringify(queued({ properties: { emoji: '😀', quote: '"}' } })), { anonymizeIps: false, clock }),
      prepareRow('not json', { anonymizeIps: false, clock }),
      prepareRow(JSON.stringify(queued({ event: '$identify', properties: { $process_person_profile: false } })), {
        anonymizeIps: false,
        clock,
      }),
      prepareRow(
        JSON.stringify(
          queued({
            event: '$groupidentify',
            ip: '1.2.3.4',
            properties: { $group_type: 't', $group_key: 'k', $set: { a: [1, { b: null }] } },
          }),
        ),
        { anonymizeIps: true, clock },
      ),
      // Every field away from its default: a merge, $unset, warnings, groups with own keys, a session and elements.
      prepareRow(
        JSON.stringify(
          queued({
            event: '$identify',
            timestamp: 'not a time',
            properties: {
              $anon_distinct_id: 'anon-1',
              $unset: ['old'],
              $groups: { company: 'acme' },
              $group_0: 'mine',
              $session_id: 's-1',
              $elements_chain: 'a:nth-child="1"',
            },
          }),
        ),
        { anonymizeIps: false, clock },
      ),
      prepareRow(JSON.stringify(queued({ person_only: true, properties: { $set: { plan: 'pro' } } })), { anonymizeIps: false, clock }),
    ];
    const [merged, personOnly] = rows.slice(4) as PreparedEvent[];
    expect({
      merge: merged!.merge !== undefined,
      unset: merged!.update.unset,
      warnings: merged!.warnings.length > 0,
      groups: merged!.groups !== undefined,
      ownGroupKeys: merged!.ownGroupKeys,
      session: merged!.sessionId,
      elements: merged!.elementsChain !== null,
      personOnly: personOnly!.personOnly,
    }).toEqual({
      merge: true,
      unset: ['old'],
      warnings: true,
      groups: true,
      ownGroupKeys: true,
      session: 's-1',
      elements: true,
      personOnly: true,
    });
    const unpacked = unpackReply(packReply(rows), geoip);
    // JSON leaves out undefined members, as the receiving code reads them: compare through JSON.
    expect(JSON.parse(JSON.stringify(unpacked))).toEqual(JSON.parse(JSON.stringify(rows)));
    expect((unpacked[0] as PreparedEvent).propertiesJson).toBe((rows[0] as PreparedEvent).propertiesJson);
    expect((unpacked[3] as PreparedEvent).propertiesJson).toBe((rows[3] as PreparedEvent).propertiesJson);
  });

  it("sends a located event's GeoIP keys as its address, and the worker's thread finds them again", () => {
    const row = prepareRow(JSON.stringify(queued({ event: '$pageview', ip: '80.156.0.1', properties: { $set: { plan: 'pro' } } })), {
      anonymizeIps: false,
      geoip,
      clock: new ReceiptClock(),
    });
    const prepared = row as PreparedEvent;
    expect(prepared.geoipAddress).toBe('80.156.0.1');
    expect(prepared.update.setOverlay).toMatchObject({ $geoip_country_code: 'DE' });
    const packed = packReply([row]);
    // Not in what crosses the threads: only the address (and the keys' names and types, for the definitions).
    expect(packed.meta.replace(JSON.stringify(prepared.definitions), '')).not.toContain('$geoip_country_code');
    const [unpacked] = unpackReply(packed, geoip) as PreparedEvent[];
    expect(unpacked!.update.setOverlay).toEqual(prepared.update.setOverlay);
    expect(unpacked!.update.setOnceOverlay).toEqual(prepared.update.setOnceOverlay);
    expect(unpacked!.update.set).toEqual({ plan: 'pro' });
    // Without the database there, the row is left for the worker to prepare.
    expect(isUnprepared(unpackReply(packReply([row]), undefined)[0]!)).toBe(true);
  });
});
