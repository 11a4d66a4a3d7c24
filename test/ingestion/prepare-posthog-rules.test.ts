import { describe, expect, it } from 'vitest';
import { prepareQueuedEvent, ReceiptClock, type PreparedEvent } from '../../src/ingestion/worker/prepare.js';
import type { QueuedEvent } from '../../src/ingestion/queue.js';

/**
 * What the prepare step (the worker's steps that read nothing stored) decides for the events
 * PostHog treats apart, and the normalisation it applies to every stored event.
 */
const NOW = '2026-03-01T12:00:00.000Z';
const UUID = '0190f2b4-0000-7000-8000-000000000001';

function queued(overrides: Partial<QueuedEvent> = {}): QueuedEvent {
  return { uuid: UUID, event: 'clicked', distinct_id: 'd-1', properties: {}, now: NOW, ip: null, ...overrides };
}

const prepare = (event: QueuedEvent): PreparedEvent => prepareQueuedEvent(event, { anonymizeIps: false, clock: new ReceiptClock() });
const parsed = (prepared: PreparedEvent) => JSON.parse(prepared.propertiesJson) as Record<string, unknown>;

describe('events PostHog does not store', () => {
  it('turns a $$client_ingestion_warning into its warning, with nothing to store and no person', () => {
    const prepared = prepare(
      queued({
        event: '$$client_ingestion_warning',
        timestamp: 'garbage',
        properties: { $$client_ingestion_warning_message: 'oops', $process_person_profile: 'x' },
      }),
    );
    expect(prepared.mode).toBe('drop');
    expect(prepared.warnings).toEqual([
      {
        type: 'client_ingestion_warning',
        details: { eventUuid: UUID, event: '$$client_ingestion_warning', distinctId: 'd-1', message: 'oops' },
      },
    ]);
  });

  it('drops a $$heatmap without a warning', () => {
    const prepared = prepare(
      queued({ event: '$$heatmap', properties: { $heatmap_data: { 'https://x.io/': [{ x: 1, y: 2, type: 'click' }] }, $set: { a: 1 } } }),
    );
    expect(prepared.mode).toBe('drop');
    expect(prepared.warnings).toEqual([]);
    expect(prepare(queued({ event: '$$heatmap', person_only: true, properties: { $set: { a: 1 } } })).mode).toBe('drop');
  });
});

describe('groups', () => {
  it('names no groups for a personless event', () => {
    const prepared = prepare(queued({ properties: { $process_person_profile: false, $groups: { company: 'acme' } } }));
    expect(prepared.mode).toBe('personless');
    expect(prepared.groups).toBeUndefined();
    expect(parsed(prepared).$groups).toEqual({ company: 'acme' });
  });

  it('attaches a $groupidentify to its own group only through $groups, and stores it without person updates', () => {
    const alone = prepare(
      queued({
        event: '$groupidentify',
        properties: { $group_type: 'company', $group_key: 'acme', $set: { a: 1 }, $set_once: { b: 1 }, $unset: ['c'] },
      }),
    );
    expect(alone.groups).toEqual({ identified: { type: 'company', key: 'acme', set: {} }, attached: [] });
    expect(parsed(alone)).toEqual({ $group_type: 'company', $group_key: 'acme' });
    const withGroups = prepare(
      queued({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: 'acme', $groups: { company: 'acme' } } }),
    );
    expect(withGroups.groups!.attached).toEqual([['company', 'acme']]);
  });

  it('upserts no group for a falsy $group_key, but a $group_set still makes sure of the type', () => {
    for (const key of [0, '', null, false, undefined]) {
      expect(prepare(queued({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: key } })).groups).toBeUndefined();
      const withSet = prepare(
        queued({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: key, $group_set: { n: 1 } } }),
      );
      expect(withSet.groups!.identified).toEqual({ type: 'company', set: { n: 1 } });
    }
    expect(
      prepare(queued({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: true } })).groups!.identified!.key,
    ).toBe('true');
  });

  it('copies $groups values as they are: a number stays a number', () => {
    expect(prepare(queued({ properties: { $groups: { company: 42, team: null } } })).groups!.attached).toEqual([
      ['company', 42],
      ['team', null],
    ]);
  });
});

describe('$exception', () => {
  it('only reads its person: no update, no merge, and no deferred person update', () => {
    const prepared = prepare(
      queued({ event: '$exception', properties: { $set: { a: 1 }, $set_once: { b: 1 }, $groups: { company: 'acme' } } }),
    );
    expect(prepared.mode).toBe('lookup');
    expect(prepared.update).toEqual({ set: {}, setOnce: {}, unset: [] });
    expect(parsed(prepared).$set).toBeUndefined();
    expect(parsed(prepared).$set_once).toBeUndefined();
    expect(prepared.groups!.attached).toEqual([['company', 'acme']]);
    expect(prepare(queued({ event: '$exception', person_only: true, properties: { $set: { a: 1 } } })).mode).toBe('drop');
  });
});

describe('normalisation of stored properties', () => {
  it('adds $sent_at and the capture address, lower-cases a UUID session id and drops $process_person_profile: true', () => {
    const prepared = prepare(
      queued({
        ip: '198.51.100.4',
        sent_at: '2026-03-01T12:00:01.000Z',
        properties: { $ip: '', $session_id: '0190F2B4-AB12-7000-8000-0000000000AB', $process_person_profile: true },
      }),
    );
    expect(parsed(prepared)).toEqual({
      $ip: '198.51.100.4',
      $sent_at: '2026-03-01T12:00:01.000Z',
      $session_id: '0190f2b4-ab12-7000-8000-0000000000ab',
    });
    expect(prepared.sessionId).toBe('0190f2b4-ab12-7000-8000-0000000000ab');
  });

  it('names the event in the warnings of its timestamp and person mode', () => {
    const prepared = prepare(queued({ timestamp: 'not a date', properties: { $process_person_profile: 'yes' } }));
    expect(prepared.warnings.map((w) => [w.type, w.details.eventUuid])).toEqual([
      ['ignored_invalid_timestamp', UUID],
      ['invalid_process_person_profile', UUID],
    ]);
    expect(prepared.warnings[1]!.details).toMatchObject({ event: 'clicked', distinctId: 'd-1' });
  });
});
