/**
 * The request shapes the real SDKs send (posthog-node 5.x, posthog-js 1.434.18), run through the
 * whole pure pipeline: decode → extract → timestamps → person properties → merge rules.
 * posthog-node is driven for real (a devDependency) with a capturing fetch; posthog-js shapes are
 * rebuilt byte for byte from requests observed from that version.
 */
import { gzipSync } from 'node:zlib';

import lzString from 'lz-string';
import { PostHog } from 'posthog-node';
import { describe, expect, it } from 'vitest';

import { BATCH_LIMITS, CAPTURE_LIMITS, DECIDE_LIMITS, type DecodeBodyLimits, decodeBody } from '../../src/sdk/decode-body.js';
import {
  type ExtractedEvent,
  type IngestEndpoint,
  type QueryParams,
  computeEventTimestamp,
  decideMerge,
  decidePersonProcessing,
  detectMergeRequest,
  extractEvents,
  extractPersonPropertyUpdate,
  geoipLookupTarget,
  normalizePersonProperties,
  resolveSentAt,
} from '../../src/ingestion/core/index.js';

interface CapturedRequest {
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
}

interface IngestRequest {
  endpoint: IngestEndpoint;
  body?: Buffer | string;
  contentType?: string;
  contentEncoding?: string;
  query?: QueryParams;
  limits?: DecodeBodyLimits;
}

const now = new Date('2026-06-01T12:00:00.000Z');

function ingest(request: IngestRequest) {
  const decoded = decodeBody({
    body: request.body,
    contentType: request.contentType,
    contentEncoding: request.contentEncoding,
    query: request.query,
    limits: request.limits ?? (request.endpoint === 'batch' ? BATCH_LIMITS : CAPTURE_LIMITS),
  });
  if (!decoded.ok) throw new Error(`decode failed: ${decoded.error.detail}`);
  const extracted = extractEvents({ value: decoded.value, endpoint: request.endpoint, query: request.query });
  if (!extracted.ok) throw new Error(`extract failed: ${extracted.error.detail}`);
  const sentAt = resolveSentAt(extracted.sentAt, request.query);
  const timestamps = extracted.events.map((e) =>
    computeEventTimestamp({ now, timestamp: e.timestamp, offset: e.offset, sentAt, properties: e.properties }),
  );
  return { decoded, extracted, timestamps };
}

async function runPosthogNode(
  options: Record<string, unknown>,
  drive: (client: PostHog) => Promise<void> | void,
): Promise<CapturedRequest[]> {
  const requests: CapturedRequest[] = [];
  const client = new PostHog('phc_test', {
    host: 'http://hoglet.test',
    flushAt: 100,
    flushInterval: 0,
    ...options,
    fetch: async (url: string, init: { headers?: Record<string, string>; body?: Uint8Array | string }) => {
      const body = typeof init.body === 'string' ? Buffer.from(init.body) : Buffer.from(init.body ?? []);
      requests.push({ url: new URL(url), headers: init.headers ?? {}, body });
      const payload = url.includes('/flags') ? { flags: {}, errorsWhileComputingFlags: false, requestId: 'r1' } : { status: 1 };
      return { status: 200, text: async () => JSON.stringify(payload), json: async () => payload };
    },
  } as ConstructorParameters<typeof PostHog>[1]);
  await drive(client);
  await client.shutdown();
  return requests;
}

function requestToIngest(request: CapturedRequest): IngestRequest {
  return {
    endpoint: 'batch',
    body: request.body,
    contentType: request.headers['Content-Type'],
    contentEncoding: request.headers['Content-Encoding'],
    query: Object.fromEntries(request.url.searchParams),
  };
}

describe('posthog-node 5.x (real client)', () => {
  it('sends gzip batches that decode into capture, identify, alias and groupidentify events', async () => {
    const before = Date.now();
    const requests = await runPosthogNode({}, (client) => {
      client.capture({ distinctId: 'u1', event: 'signed_up', properties: { plan: 'pro' }, groups: { company: 'acme' } });
      client.identify({ distinctId: 'u1', properties: { email: 'u1@example.com', $set_once: { first_plan: 'pro' } } });
      client.alias({ distinctId: 'u1', alias: 'anon-1' });
      client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme' } });
    });
    const after = Date.now();
    const batches = requests.filter((r) => r.url.pathname === '/batch/');
    expect(batches).toHaveLength(1);
    const request = batches[0]!;
    expect(request.headers['Content-Encoding']).toBe('gzip');
    expect(request.body[0]).toBe(0x1f);

    const { decoded, extracted, timestamps } = ingest(requestToIngest(request));
    expect(decoded.compression).toBe('gzip');
    expect(extracted.token).toBe('phc_test');
    expect(typeof extracted.sentAt).toBe('string');
    expect(extracted.dropped).toEqual([]);
    const byName = new Map(extracted.events.map((e) => [e.event, e]));
    expect([...byName.keys()]).toEqual(['signed_up', '$identify', '$create_alias', '$groupidentify']);

    const signedUp = byName.get('signed_up')!;
    expect(signedUp.distinctId).toBe('u1');
    expect(signedUp.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(signedUp.properties).toMatchObject({ plan: 'pro', $lib: 'posthog-node', $geoip_disable: true, $groups: { company: 'acme' } });
    expect(geoipLookupTarget({ ...signedUp.properties, $ip: '1.2.3.4' })).toEqual({ skip: 'disabled' });
    // sent_at and timestamp come from the same clock, the event's first, both within the run:
    // the result is `now` less that moment, no more than the run took.
    expect(timestamps[0]!.timestamp.getTime()).toBeLessThanOrEqual(now.getTime());
    expect(timestamps[0]!.timestamp.getTime()).toBeGreaterThanOrEqual(now.getTime() - (after - before));
    expect(timestamps[0]!.warnings).toEqual([]);

    const identify = byName.get('$identify')!;
    const identifyUpdate = extractPersonPropertyUpdate({ event: identify.event, properties: normalizePersonProperties(identify) });
    expect(identifyUpdate.set).toMatchObject({ email: 'u1@example.com' });
    expect(identifyUpdate.setOnce).toMatchObject({ first_plan: 'pro' });

    const alias = byName.get('$create_alias')!;
    const mergeRequest = detectMergeRequest(alias);
    expect(mergeRequest).toEqual({ kind: '$create_alias', intoDistinctId: 'u1', otherDistinctId: 'anon-1' });
    expect(decideMerge({ request: mergeRequest!, intoPerson: { id: 'p1', isIdentified: true }, otherPerson: undefined }).action).toBe(
      'add_distinct_id',
    );

    const group = byName.get('$groupidentify')!;
    expect(group.properties).toMatchObject({ $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } });
    expect(extractPersonPropertyUpdate({ event: group.event, properties: normalizePersonProperties(group) }).set).toEqual({});
  });

  it('marks historical migrations and sends plain JSON when compression is disabled', async () => {
    const before = Date.now();
    const requests = await runPosthogNode({ historicalMigration: true, disableCompression: true }, (client) => {
      client.capture({ distinctId: 'u2', event: 'imported', timestamp: new Date('2020-01-01T00:00:00Z') });
    });
    const after = Date.now();
    const request = requests.find((r) => r.url.pathname === '/batch/')!;
    expect(request.headers['Content-Encoding']).toBeUndefined();
    const { decoded, extracted, timestamps } = ingest(requestToIngest(request));
    expect(decoded.compression).toBe('none');
    expect(extracted.historicalMigration).toBe(true);
    // The event's own timestamp is kept, as far from `now` as it was from sent_at (sent during the run).
    const age = (sentAt: number) => now.getTime() - (sentAt - Date.UTC(2020, 0, 1));
    expect(timestamps[0]!.timestamp.getTime()).toBeGreaterThanOrEqual(age(after));
    expect(timestamps[0]!.timestamp.getTime()).toBeLessThanOrEqual(age(before));
  });

  it('sends /flags requests that decode as plain JSON', async () => {
    const requests = await runPosthogNode({}, async (client) => {
      await client.evaluateFlags('u1', { flagKeys: ['my-flag'], personProperties: { plan: 'pro' } });
    });
    const flags = requests.find((r) => r.url.pathname === '/flags/')!;
    expect(flags.url.searchParams.get('v')).toBe('2');
    const decoded = decodeBody({ body: flags.body, contentType: flags.headers['Content-Type'], limits: DECIDE_LIMITS });
    expect(decoded.ok && decoded.value).toMatchObject({
      token: 'phc_test',
      distinct_id: 'u1',
      geoip_disable: true,
      person_properties: { plan: 'pro' },
    });
  });
});

describe('posthog-js request shapes', () => {
  const token = 'phc_js';
  const pageview = (extra: Record<string, unknown> = {}) => ({
    uuid: '0190a3c5-7e1f-7d4a-9a3b-1234567890ab',
    event: '$pageview',
    properties: {
      token,
      distinct_id: 'anon-device-1',
      $lib: 'web',
      $lib_version: '1.249.0',
      $session_id: 's1',
      $window_id: 'w1',
      $current_url: 'https://app.example.com/pricing?utm_source=ad',
      $browser: 'Chrome',
      $os: 'Mac OS X',
      utm_source: 'ad',
      gclid: null,
      $process_person_profile: true,
    },
    ...extra,
  });

  it('classic gzip-js: POST /e/?ip=1&_=…&ver=…&compression=gzip-js, text/plain, array with offsets', () => {
    const body = gzipSync(JSON.stringify([pageview({ offset: 1500 }), pageview({ uuid: undefined, event: '$autocapture', offset: 20 })]));
    const { decoded, extracted, timestamps } = ingest({
      endpoint: 'capture',
      body,
      contentType: 'text/plain',
      query: { ip: '1', _: String(now.getTime()), ver: '1.249.0', compression: 'gzip-js' },
    });
    expect(decoded.compression).toBe('gzip');
    expect(extracted.token).toBe(token);
    expect(timestamps.map((t) => t.timestamp.toISOString())).toEqual(['2026-06-01T11:59:58.500Z', '2026-06-01T11:59:59.980Z']);
    const person = normalizePersonProperties(extracted.events[0]!);
    expect(person.$set).toMatchObject({ $browser: 'Chrome', $os: 'Mac OS X', utm_source: 'ad', gclid: null });
    expect(person.$set_once).toMatchObject({ $initial_browser: 'Chrome', $initial_utm_source: 'ad' });
    expect(person.$set_once).not.toHaveProperty('$initial_gclid');
  });

  it('2026 shape: gzip envelope {api_key, batch, sent_at} with no compression hint', () => {
    const sentAt = '2026-06-01T13:00:10.000Z'; // client clock one hour fast
    const body = gzipSync(
      JSON.stringify({ api_key: token, batch: [pageview({ timestamp: '2026-06-01T13:00:00.000Z' })], sent_at: sentAt }),
    );
    const { decoded, extracted, timestamps } = ingest({ endpoint: 'capture', body, contentType: 'text/plain' });
    expect(decoded.compression).toBe('gzip');
    expect(extracted.sentAt).toBe(sentAt);
    expect(timestamps[0]!.timestamp.toISOString()).toBe('2026-06-01T11:59:50.000Z');
  });

  it('base64 transport: form data=<urlencoded base64>, compression=base64', () => {
    const base64 = Buffer.from(JSON.stringify([pageview()])).toString('base64');
    const { decoded, extracted } = ingest({
      endpoint: 'capture',
      body: `data=${encodeURIComponent(base64)}`,
      contentType: 'application/x-www-form-urlencoded',
      query: { compression: 'base64', ver: '1.2' },
    });
    expect(decoded.source).toBe('form');
    expect(extracted.events[0]!.uuid).toBe('0190a3c5-7e1f-7d4a-9a3b-1234567890ab');
  });

  it('sendBeacon on unload: ?beacon=1 with a base64 form body', () => {
    const base64 = Buffer.from(JSON.stringify([pageview({ event: '$pageleave' })])).toString('base64');
    const { extracted } = ingest({
      endpoint: 'capture',
      body: `data=${encodeURIComponent(base64)}`,
      contentType: 'application/x-www-form-urlencoded',
      query: { beacon: '1', _: String(now.getTime()) },
    });
    expect(extracted.events[0]!.event).toBe('$pageleave');
  });

  it('legacy lz64 form and legacy GET ?data=', () => {
    const json = JSON.stringify(pageview());
    const lz = ingest({
      endpoint: 'capture',
      body: `data=${encodeURIComponent(lzString.compressToBase64(json))}`,
      contentType: 'application/x-www-form-urlencoded',
      query: { compression: 'lz64' },
    });
    expect(lz.decoded.compression).toBe('lz64');
    expect(lz.extracted.events[0]!.distinctId).toBe('anon-device-1');
    const get = ingest({ endpoint: 'capture', query: { data: Buffer.from(json).toString('base64') } });
    expect(get.decoded.source).toBe('query');
    expect(get.extracted.events[0]!.event).toBe('$pageview');
  });

  it('identify(): $identify with $anon_distinct_id and top-level $set / $set_once', () => {
    const body = gzipSync(
      JSON.stringify([
        {
          uuid: '0190a3c5-7e1f-7d4a-9a3b-1234567890ac',
          event: '$identify',
          properties: { token, distinct_id: 'user-42', $anon_distinct_id: 'anon-device-1', $browser: 'Chrome', $set: { plan: 'old' } },
          $set: { email: 'u@example.com', plan: 'new' },
          $set_once: { signup_source: 'ad' },
          timestamp: '2026-06-01T11:59:00.000Z',
        },
      ]),
    );
    const { extracted } = ingest({ endpoint: 'capture', body, contentType: 'text/plain' });
    const identify: ExtractedEvent = extracted.events[0]!;
    const update = extractPersonPropertyUpdate({ event: identify.event, properties: normalizePersonProperties(identify) });
    expect(update.set).toEqual({ email: 'u@example.com', plan: 'new', $browser: 'Chrome' });
    expect(update.setOnce).toEqual({ signup_source: 'ad', $initial_browser: 'Chrome' });
    const merge = detectMergeRequest(identify)!;
    expect(merge).toEqual({ kind: '$identify', intoDistinctId: 'user-42', otherDistinctId: 'anon-device-1' });
    expect(decideMerge({ request: merge, intoPerson: undefined, otherPerson: { id: 'anon', isIdentified: false } })).toMatchObject({
      action: 'add_distinct_id',
      personId: 'anon',
      distinctId: 'user-42',
    });
  });

  it('unsetPersonProperties(): $set event with properties.$unset', () => {
    const { extracted } = ingest({
      endpoint: 'capture',
      body: JSON.stringify([{ event: '$set', properties: { token, distinct_id: 'u', $unset: ['plan'] } }]),
    });
    expect(extractPersonPropertyUpdate(extracted.events[0]!).unset).toEqual(['plan']);
  });

  it("person_profiles 'identified_only': anonymous events are personless, a personless $identify is dropped", () => {
    const anon = pageview();
    anon.properties.$process_person_profile = false;
    const { extracted } = ingest({ endpoint: 'capture', body: JSON.stringify([anon, { ...anon, event: '$identify' }]) });
    expect(extracted.events.map((e) => decidePersonProcessing(e).kind)).toEqual(['personless', 'drop']);
  });

  it('old /decide/?v=3 base64 form body and /flags JSON body', () => {
    const decideBody = { token, distinct_id: 'anon-device-1', groups: {}, person_properties: {}, group_properties: {} };
    const form = decodeBody({
      body: `data=${encodeURIComponent(Buffer.from(JSON.stringify(decideBody)).toString('base64'))}`,
      contentType: 'application/x-www-form-urlencoded',
      query: { v: '3', compression: 'base64' },
      limits: DECIDE_LIMITS,
    });
    expect(form.ok && form.value).toEqual(decideBody);
    const flags = decodeBody({
      body: JSON.stringify({ ...decideBody, sent_at: now.toISOString() }),
      contentType: 'application/json',
      limits: DECIDE_LIMITS,
    });
    expect(flags.ok && flags.value).toMatchObject(decideBody);
  });

  it('/engage/ objects: {$token, $distinct_id, $set} become $identify', () => {
    const { extracted } = ingest({ endpoint: 'engage', body: JSON.stringify({ $token: token, $distinct_id: 'u', $set: { a: 1 } }) });
    expect(extracted.events[0]).toMatchObject({ event: '$identify', distinctId: 'u', set: { a: 1 } });
  });
});
