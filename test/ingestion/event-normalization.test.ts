import { describe, expect, it } from 'vitest';
import {
  addRequestContext,
  applyPersonModeToProperties,
  clientIngestionWarning,
  computeEventTimestamp,
  decidePersonProcessing,
  normalizeSessionId,
  routeEvent,
  type Properties,
} from '../../src/ingestion/core/index.js';

/**
 * Event-level rules PostHog applies before storing an event (nodejs `common/utils/event.ts`
 * sanitizeEvent / normalizeProcessPerson, the pipelines' routing) and the details of the ingestion
 * warnings the pure steps record (normalizeProcessPersonFlagStep, parseEventTimestamp).
 */
const stored = (properties: Properties) => JSON.parse(JSON.stringify(properties)) as Properties;

describe('routeEvent', () => {
  it('sends the special events to their own pipelines and everything else to analytics', () => {
    expect(routeEvent('$$client_ingestion_warning')).toBe('client_ingestion_warning');
    expect(routeEvent('$$heatmap')).toBe('heatmap');
    expect(routeEvent('$exception')).toBe('exception');
    for (const event of ['$pageview', 'clicked', '$identify', '$$plugin_metrics', '$heatmap', 'exception'])
      expect(routeEvent(event)).toBe('analytics');
  });
});

describe('clientIngestionWarning', () => {
  it("records PostHog's details: the event's uuid, name and distinct id, and the client's message", () => {
    const warning = clientIngestionWarning({
      uuid: 'u-1',
      event: '$$client_ingestion_warning',
      distinctId: 'd-1',
      properties: { $$client_ingestion_warning_message: 'flush failed', other: 1 },
    });
    expect(warning).toEqual({
      type: 'client_ingestion_warning',
      details: { eventUuid: 'u-1', event: '$$client_ingestion_warning', distinctId: 'd-1', message: 'flush failed' },
    });
  });
});

describe('addRequestContext', () => {
  it('adds $ip from the capture address when the event has none, or a null or empty one', () => {
    for (const own of [undefined, null, '']) {
      const properties: Properties = own === undefined ? {} : { $ip: own };
      addRequestContext(properties, '198.51.100.7', null);
      expect(properties.$ip).toBe('198.51.100.7');
    }
    const kept: Properties = { $ip: '203.0.113.9' };
    addRequestContext(kept, '198.51.100.7', null);
    expect(kept.$ip).toBe('203.0.113.9');
    const noAddress: Properties = { $ip: null };
    addRequestContext(noAddress, null, null);
    expect(noAddress.$ip).toBeNull();
  });

  it("copies the request's sent_at to $sent_at, over the client's own", () => {
    const properties: Properties = { $sent_at: 'client' };
    addRequestContext(properties, null, '2026-03-01T12:00:01.000Z');
    expect(properties.$sent_at).toBe('2026-03-01T12:00:01.000Z');
    const none: Properties = {};
    addRequestContext(none, null, null);
    expect('$sent_at' in none).toBe(false);
  });

  it('copies sent_at only as a parsed time: an offset is written in UTC, junk is not copied', () => {
    const offset: Properties = {};
    addRequestContext(offset, null, '2026-03-01T14:00:01.5+02:00');
    expect(offset.$sent_at).toBe('2026-03-01T12:00:01.500Z');
    for (const junk of ['nope', 'x'.repeat(100_000)]) {
      const properties: Properties = { $sent_at: 'client' };
      addRequestContext(properties, null, junk);
      expect(properties.$sent_at).toBe('client');
    }
  });

  it('lower-cases a $session_id that is a UUID, and nothing else', () => {
    const properties: Properties = { $session_id: '0190F2B4-AB12-7000-8000-0000000000AB' };
    addRequestContext(properties, null, null);
    expect(properties.$session_id).toBe('0190f2b4-ab12-7000-8000-0000000000ab');
    expect(normalizeSessionId('SESSION-ABC')).toBe('SESSION-ABC');
    expect(normalizeSessionId('0190F2B4-AB12-7000-8000-0000000000AG')).toBe('0190F2B4-AB12-7000-8000-0000000000AG');
    expect(normalizeSessionId('{0190F2B4-AB12-7000-8000-0000000000A}')).toBe('{0190F2B4-AB12-7000-8000-0000000000A}');
    expect(normalizeSessionId(7)).toBe(7);
  });
});

describe('applyPersonModeToProperties', () => {
  const full = (): Properties => ({ a: 1, $set: { b: 1 }, $set_once: { c: 1 }, $unset: ['d'], $process_person_profile: true });

  it('drops $process_person_profile from events that process their person (it is the default)', () => {
    for (const flag of [true, 'yes']) {
      const properties: Properties = { a: 1, $set: { b: 1 }, $process_person_profile: flag };
      applyPersonModeToProperties(properties, '$pageview', 'process');
      expect(stored(properties)).toEqual({ a: 1, $set: { b: 1 } });
    }
  });

  it('strips the person update of a personless event and keeps its flag false', () => {
    const properties: Properties = { a: 1, $set: { b: 1 }, $set_once: { c: 1 }, $unset: ['d'], $process_person_profile: false };
    applyPersonModeToProperties(properties, '$pageview', 'personless');
    expect(stored(properties)).toEqual({ a: 1, $process_person_profile: false });
  });

  it('strips $set, $set_once and $unset from a $groupidentify', () => {
    const properties = { ...full(), $group_type: 'company', $group_key: 'acme' };
    applyPersonModeToProperties(properties, '$groupidentify', 'process');
    expect(stored(properties)).toEqual({ a: 1, $group_type: 'company', $group_key: 'acme' });
  });

  it('strips $set and $set_once from an $exception, whose person is only read', () => {
    const properties = full();
    applyPersonModeToProperties(properties, '$exception', 'lookup');
    expect(stored(properties)).toEqual({ a: 1, $unset: ['d'], $process_person_profile: true });
  });

  it('never stores heatmap data with an event', () => {
    const properties: Properties = { a: 1, $heatmap_data: { 'https://x.io': [{ x: 1, y: 2 }] } };
    applyPersonModeToProperties(properties, '$pageview', 'process');
    expect(stored(properties)).toEqual({ a: 1 });
  });
});

describe("ingestion warnings' details", () => {
  const now = new Date('2026-06-01T12:00:00.000Z');
  const named = { eventUuid: 'u-1', event: 'clicked' };

  it('name the event of an ignored invalid timestamp', () => {
    const unparsable = computeEventTimestamp({ now, timestamp: 'not a date', ...named });
    expect(unparsable.warnings).toEqual([
      {
        type: 'ignored_invalid_timestamp',
        details: { eventUuid: 'u-1', field: 'timestamp', value: 'not a date', reason: 'invalid format' },
      },
    ]);
    const badSentAt = computeEventTimestamp({ now, timestamp: '2026-06-01T11:00:00Z', sentAt: 'nope', ...named });
    expect(badSentAt.warnings[0]!.details).toEqual({ eventUuid: 'u-1', field: 'sent_at', value: 'nope', reason: 'invalid format' });
    const outOfBounds = computeEventTimestamp({ now, offset: 1e15, ...named });
    expect(outOfBounds.warnings[0]!.details).toMatchObject({ eventUuid: 'u-1', field: 'timestamp', reason: 'out of bounds', offset: 1e15 });
    expect(typeof outOfBounds.warnings[0]!.details.parsed_year).toBe('number');
  });

  it('name the event of a timestamp in the future', () => {
    const result = computeEventTimestamp({ now, timestamp: '2026-06-03T12:00:00Z', ...named });
    expect(result.warnings[0]).toMatchObject({
      type: 'event_timestamp_in_future',
      details: { eventUuid: 'u-1', eventName: 'clicked', result: '2026-06-03T12:00:00.000Z' },
    });
  });

  it('name the event of an invalid or refused $process_person_profile', () => {
    const invalid = decidePersonProcessing({
      event: 'clicked',
      uuid: 'u-1',
      distinctId: 'd-1',
      properties: { $process_person_profile: 'no' },
    });
    expect(invalid.warnings).toEqual([
      {
        type: 'invalid_process_person_profile',
        details: {
          eventUuid: 'u-1',
          event: 'clicked',
          distinctId: 'd-1',
          $process_person_profile: 'no',
          message: 'Only a boolean value is valid for the $process_person_profile property',
        },
      },
    ]);
    const refused = decidePersonProcessing({
      event: '$identify',
      uuid: 'u-2',
      distinctId: 'd-2',
      properties: { $process_person_profile: false },
    });
    expect(refused.warnings).toEqual([
      { type: 'invalid_event_when_process_person_profile_is_false', details: { eventUuid: 'u-2', event: '$identify', distinctId: 'd-2' } },
    ]);
  });
});
