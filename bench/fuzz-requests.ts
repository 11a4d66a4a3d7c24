/**
 * Seeded fuzzed requests for the whole HTTP surface (issue 25): malformed bodies of every kind
 * (truncated and invalid JSON, wrong JSON types, huge numbers, NUL and lone surrogates, invalid
 * UTF-8, wrong content types, gzip/lz64/base64 garbage and bombs, deep nesting, very long strings)
 * for every public endpoint, and fuzzed path ids, query strings and bodies for /api routes. Used by
 * the suite's fuzz test (test/app/fuzz.test.ts) and by bench/fuzz-memory.ts, which sends
 * tens of thousands of them and watches the server's memory.
 */
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';

/** mulberry32: a small, fast, seeded PRNG. */
export class Random {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** JSON text written as is (numbers JSON.stringify cannot make, broken fragments). */
class Raw {
  constructor(readonly text: string) {}
}
/** An object as ordered entries, so keys may repeat or be `__proto__`. */
class Entries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') return toJson(new Entries(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}

const HUGE_NUMBERS = [
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1e308',
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0.1e1',
  '1E2',
  '4.5',
];
const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d',
  '\uffff',
  '\u2028',
  '💩',
  '%00',
  '\\',
  '"',
  "'; drop table teams; --",
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'null',
  'true',
  '9223372036854775808',
  '-1',
  '1.5',
  '[]',
  '{}',
  '2024-13-45T99:99:99Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999+14:00',
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  '.*',
  '(a+)+$',
  '${x}',
  '<script>',
  'a b\tc\nd',
  'phc_',
  'phs_x',
  'phx_x',
];
const FIELD_NAMES = [
  'key',
  'name',
  'filters',
  'groups',
  'properties',
  'active',
  'deleted',
  'tags',
  'description',
  'dashboard',
  'insight',
  'dashboards',
  'query',
  'target_type',
  'target_value',
  'frequency',
  'interval',
  'start_date',
  'byweekday',
  'bysetpos',
  'count',
  'until_date',
  'title',
  'distinct_id',
  'distinct_ids',
  'uuids',
  'ids',
  'person',
  'person_id',
  'person_ids',
  'is_static',
  'csv',
  'version',
  'original_flag',
  'ensure_experience_continuity',
  'evaluation_runtime',
  'bucketing_identifier',
  'is_remote_configuration',
  'timezone',
  'app_urls',
  'type',
  'value',
  'operator',
  'rollout_percentage',
  'variant',
  'multivariate',
  'payloads',
  'aggregation_group_type_index',
  '$set',
  '$unset',
  'main_distinct_id',
  'delete_events',
  'enabled',
  'product_type',
  'intent_context',
  'pinned',
  'viewed',
  'limit',
  'offset',
  'uuid',
];

function oddString(random: Random): string {
  if (random.chance(0.03)) return random.pick(['x', '\u0000', '\ud800', ' ']).repeat(random.pick([10_000, 100_000, 300_000]));
  if (random.chance(0.3)) return `${random.pick(ODD_STRINGS)}${random.pick(ODD_STRINGS)}`;
  return random.pick(ODD_STRINGS);
}

/** Any JSON value, odd ones favoured. */
function fuzzValue(random: Random, depth = 0): unknown {
  const roll = random.int(depth > 2 ? 6 : 9);
  switch (roll) {
    case 0:
    case 1:
      return oddString(random);
    case 2:
    case 3:
      return new Raw(random.pick(HUGE_NUMBERS));
    case 4:
      return random.pick([null, true, false, 0, 1, -1]);
    case 5:
      return random.chance(0.5) ? String(random.int(100)) : new Raw(random.pick(['{}', '[]', '""', '[null]', '{"":null}']));
    case 6:
      return Array.from({ length: random.int(4) }, () => fuzzValue(random, depth + 1));
    case 7:
      return new Entries(
        Array.from({ length: 1 + random.int(3) }, () => [
          random.chance(0.7) ? random.pick(FIELD_NAMES) : oddString(random),
          fuzzValue(random, depth + 1),
        ]),
      );
    default:
      return deep(random);
  }
}

/** Nesting past what JSON readers and recursive code take. */
function deep(random: Random): Raw {
  const n = random.pick([100, 999, 1001, 5000, 50_000]);
  return random.chance(0.5) ? new Raw('['.repeat(n) + ']'.repeat(n)) : new Raw('{"a":'.repeat(n) + '1' + '}'.repeat(n));
}

/** A plausible body with one to three fields replaced or added. */
function mutate(random: Random, template: Record<string, unknown>): Entries {
  const entries = Object.entries(template);
  for (let i = 1 + random.int(3); i > 0; i--) {
    const key = random.chance(0.7) && entries.length ? random.pick(entries)[0] : random.pick(FIELD_NAMES);
    const at = entries.findIndex(([k]) => k === key);
    const value = random.chance(0.25) ? mutateNested(random, template[key]) : fuzzValue(random);
    if (at >= 0 && random.chance(0.9)) entries[at] = [key, value];
    else entries.push([key, value]);
  }
  return new Entries(entries);
}

/** Replaces one leaf of a nested template value, keeping the rest of its shape. */
function mutateNested(random: Random, value: unknown): unknown {
  if (Array.isArray(value))
    return value.length ? value.map((item, i) => (i === 0 ? mutateNested(random, item) : item)) : [fuzzValue(random)];
  if (value !== null && typeof value === 'object') return mutate(random, value as Record<string, unknown>);
  return fuzzValue(random);
}

export interface FuzzRequest {
  method: string;
  path: string;
  body?: Buffer | string;
  headers?: Record<string, string>;
  /** Sent without credentials (the public endpoints take none). */
  anonymous?: boolean;
}

/** A JSON document's text in one of the body shapes clients send, or a broken one. */
function encodeBody(
  random: Random,
  text: string,
  forApi: boolean,
): { body: Buffer | string; headers: Record<string, string>; query: string } {
  const json = { 'content-type': 'application/json' };
  switch (random.int(forApi ? 12 : 16)) {
    case 0:
      return { body: text.slice(0, random.int(text.length)), headers: json, query: '' };
    case 1:
      return {
        body: random.pick([
          '{"a":',
          '{a:1}',
          '[1,2',
          'nul',
          '{"a":1}}',
          '{"a":1,}',
          "{'a':1}",
          '\u0000',
          'NaN',
          '{"a":NaN}',
          ' ',
          '\ufeff{}',
        ]),
        headers: json,
        query: '',
      };
    case 2:
      return { body: random.pick(['null', '[]', '[{}]', '"text"', '42', 'true', '1e400', '[null]']), headers: json, query: '' };
    case 3: {
      const bytes = Buffer.from(text);
      const at = random.int(bytes.length + 1);
      const bad = Buffer.from(random.pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80], [0xf5, 0x80, 0x80, 0x80]]));
      return { body: Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]), headers: json, query: '' };
    }
    case 4:
      return {
        body: text,
        headers: {
          'content-type': random.pick([
            'text/plain',
            'application/xml',
            'multipart/form-data',
            'multipart/form-data; boundary=x',
            'application/octet-stream',
            'application/json; charset=utf-16',
            'application/x-www-form-urlencoded',
            'text/plain; charset=utf-8',
            'a/b',
            '*/*',
          ]),
        },
        query: '',
      };
    case 5:
      return {
        body: `data=${encodeURIComponent(random.chance(0.5) ? text : Buffer.from(text).toString('base64'))}&compression=${random.pick(['lz64', 'base64', 'gzip', 'x'])}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        query: '',
      };
    case 6:
      return {
        body: Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from(Array.from({ length: random.int(64) }, () => random.int(256)))]),
        headers: { 'content-type': random.pick(['text/plain', 'application/json']) },
        query: '',
      };
    case 7:
      return { body: text, headers: { ...json, 'content-encoding': random.pick(['gzip', 'br', 'deflate', 'x']) }, query: '' };
    case 8:
      return {
        body: Buffer.from(Array.from({ length: random.int(200) }, () => random.int(256))),
        headers: random.chance(0.5) ? json : {},
        query: '',
      };
    default:
      if (!forApi && random.chance(0.5)) return publicEncoding(random, text);
      return { body: text, headers: json, query: '' };
  }
}

/** The compressed and wrapped shapes SDKs send to the public endpoints, whole or broken. */
function publicEncoding(random: Random, text: string): { body: Buffer | string; headers: Record<string, string>; query: string } {
  const plain = { 'content-type': 'text/plain' };
  switch (random.int(6)) {
    case 0: {
      const gz = gzipSync(text);
      return {
        body: random.chance(0.3) ? gz.subarray(0, random.int(gz.length)) : gz,
        headers: plain,
        query: random.pick(['', 'compression=gzip-js']),
      };
    }
    case 1:
      return {
        body: `data=${encodeURIComponent(random.chance(0.7) ? LZString.compressToBase64(text) : 'N4Ig%%garbage')}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        query: 'compression=lz64',
      };
    case 2:
      return {
        body: random.chance(0.7) ? Buffer.from(text).toString('base64') : 'eyJhIjo=!!',
        headers: plain,
        query: random.pick(['', 'compression=base64']),
      };
    case 3:
      return { body: gzipSync(text).toString('base64'), headers: plain, query: '' };
    case 4:
      return { body: text, headers: { 'content-type': 'application/json' }, query: 'compression=lz64' };
    default:
      // A long document goes in the body: node refuses request lines over 16 KB itself.
      if (text.length > 3000) return { body: text, headers: plain, query: '' };
      return {
        body: '',
        headers: {},
        query: `data=${encodeURIComponent(random.chance(0.5) ? Buffer.from(text).toString('base64') : text)}`,
      };
  }
}

/** A path segment that is not the id the route expects. */
function oddSegment(random: Random): string {
  return random.pick([
    '0',
    '-1',
    '1.5',
    '1e3',
    '2147483648',
    '9223372036854775807',
    '9223372036854775808',
    '99999999999999999999999',
    'abc',
    '%00',
    'a%00',
    '%ED%A0%80',
    '%FF',
    '%C3%28',
    '%F0%9F%92%A9',
    '@current',
    '%20',
    'null',
    '00000000-0000-0000-0000-000000000000',
    'x'.repeat(3000),
    '%2F',
    '%25',
  ]);
}

function oddQueryValue(random: Random): string {
  if (random.chance(0.3)) return random.pick(['%00', '%ED%A0%80', '%FF', '%C3%28', 'a%00b', '%5B%7B%22key%22%3A%22a%00%22%7D%5D']);
  // Kept short: node answers a request line over 16 KB with a bare 431 before any route sees it.
  return percentEncode((random.chance(0.5) ? toJson(fuzzValue(random)) : oddString(random)).slice(0, 600));
}

/** encodeURIComponent, except that a lone surrogate is written as its WTF-8 bytes instead of throwing. */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    out += char.length === 1 && unit >= 0xd800 && unit <= 0xdfff ? wtf8(unit) : encodeURIComponent(char);
  }
  return out;
}

function wtf8(unit: number): string {
  return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
}

const QUERY_KEYS = [
  'limit',
  'offset',
  'search',
  'order',
  'properties',
  'after',
  'before',
  'event',
  'distinct_id',
  'person_id',
  'key',
  'type',
  'active',
  'created_by_id',
  'id',
  'ids',
  'token',
  'api_key',
  'uuid',
  'select',
  'where',
  'date_from',
  'date_to',
  'interval',
  'cursor',
  'format',
  'group_type_index',
  'group_key',
  'distinct_ids',
  'tags',
  'evaluation_runtime',
  'send_cohorts',
  'timestamp',
  'include_set_once',
  'session_id',
  'event_names',
  'property',
  'value',
  'key_type',
  'insight',
  'dashboard',
  'short_id',
  'saved',
  'include_total',
];

function fuzzQuery(random: Random, base = ''): string {
  const parts = base ? [base] : [];
  for (let i = random.int(4); i > 0; i--) parts.push(`${random.pick(QUERY_KEYS)}=${oddQueryValue(random)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface Known {
  projectId: number;
  token: string;
  ids: Record<string, string>;
}

function captureEvent(random: Random, known: Known): Record<string, unknown> {
  return {
    event: random.pick(['$pageview', '$identify', '$groupidentify', '$snapshot', 'fuzz event', '$create_alias', '$set']),
    distinct_id: random.chance(0.8) ? 'fuzz-person' : oddString(random),
    properties: {
      $current_url: 'https://example.com/',
      $set: { plan: 'pro' },
      $groups: { company: 'acme' },
      $session_id: 's1',
      token: known.token,
    },
    timestamp: '2024-05-01T10:00:00Z',
    uuid: '0190f1a4-0000-7000-8000-000000000001',
  };
}

/** The project token, often; else one with a NUL (PostgreSQL cannot compare it), or any odd value. */
function fuzzToken(random: Random, known: Known): string {
  if (random.chance(0.65)) return known.token;
  if (random.chance(0.4))
    return random.pick([`${known.token}\u0000`, '\u0000', `phc_\u0000${known.token.slice(4)}`, `${known.token}\ud800`]);
  return oddString(random);
}

export function publicRequest(random: Random, known: Known): FuzzRequest {
  const token = fuzzToken(random, known);
  const kind = random.int(12);
  if (kind <= 5) {
    // capture, batch and friends, decide and flags, recordings: a body to decode.
    const path = random.pick(['/capture/', '/batch/', '/e/', '/i/v0/e/', '/track/', '/engage/', '/decide/', '/flags/', '/s/']);
    let template: Record<string, unknown>;
    if (path === '/batch/')
      template = { api_key: token, batch: [captureEvent(random, known), captureEvent(random, known)], sent_at: '2024-05-01T10:00:01Z' };
    else if (path === '/engage/') template = { $token: token, $distinct_id: 'fuzz-person', $set: { plan: 'pro' } };
    else if (path === '/decide/' || path === '/flags/') {
      template = {
        token,
        distinct_id: 'fuzz-person',
        groups: { company: 'acme' },
        person_properties: { plan: 'pro' },
        group_properties: { company: { size: 5 } },
        $anon_distinct_id: 'anon',
      };
    } else if (path === '/s/') {
      template = {
        api_key: token,
        event: '$snapshot',
        properties: { $session_id: 's1', $window_id: 'w1', $snapshot_data: [{ type: 4, timestamp: 1714557600000, data: {} }], token },
      };
    } else template = { api_key: token, ...captureEvent(random, known) };
    const text = random.chance(0.1) ? toJson(fuzzValue(random)) : toJson(mutate(random, template));
    const encoded = encodeBody(random, text, false);
    const version =
      path === '/decide/'
        ? `v=${random.pick(['1', '2', '3', '4', '0', 'x'])}`
        : path === '/flags/'
          ? `v=${random.pick(['1', '2', '3'])}`
          : '';
    const query = [
      version,
      encoded.query,
      random.chance(0.2)
        ? `${random.pick(['config', 'beacon', 'ip', '_', 'ver', 'compression', 'only_evaluate_survey_feature_flags'])}=${oddQueryValue(random)}`
        : '',
    ]
      .filter(Boolean)
      .join('&');
    const method = encoded.body === '' ? 'GET' : 'POST';
    return {
      method,
      path: `${path}${query ? `?${query}` : ''}`,
      ...(method === 'POST' ? { body: encoded.body } : {}),
      headers: encoded.headers,
      anonymous: true,
    };
  }
  switch (kind) {
    case 6: {
      const segment = random.chance(0.5) ? percentEncode(token.slice(0, 1000)) : oddSegment(random);
      return { method: 'GET', path: `/array/${segment}/${random.pick(['config', 'config.js'])}`, anonymous: true };
    }
    case 7:
      return {
        method: 'GET',
        path: `/flags/definitions${fuzzQuery(random, `token=${random.chance(0.5) ? percentEncode(token.slice(0, 1000)) : oddQueryValue(random)}`)}`,
        anonymous: random.chance(0.2),
      };
    case 8:
      return {
        method: 'GET',
        path: `/api/feature_flag/local_evaluation/${fuzzQuery(random, `token=${random.chance(0.5) ? percentEncode(token.slice(0, 1000)) : oddQueryValue(random)}`)}`,
      };
    case 9:
      return {
        method: 'GET',
        path: `/api/projects/${known.projectId}/feature_flags/local_evaluation/${fuzzQuery(random, `${random.pick(['token', 'api_key'])}=${random.chance(0.5) ? percentEncode(token.slice(0, 1000)) : oddQueryValue(random)}`)}`,
      };
    case 10:
      return {
        method: 'GET',
        path: `/${random.pick(['shared', 'embedded', 'shared'])}/${random.chance(0.5) ? percentEncode(oddString(random).slice(0, 300)) : oddSegment(random)}${random.chance(0.3) ? '/snapshots' : ''}${fuzzQuery(random)}`,
        anonymous: true,
      };
    default:
      return { method: random.pick(['GET', 'GET', 'POST', 'HEAD']), path: `/_health${fuzzQuery(random)}`, anonymous: true };
  }
}

/** A plausible body for an /api route, by what it manages. */
function apiTemplate(url: string, known: Known): Record<string, unknown> {
  if (url.includes('/feature_flags/'))
    return {
      key: 'fuzz-flag',
      name: 'Fuzz',
      filters: {
        groups: [{ properties: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }], rollout_percentage: 50 }],
        multivariate: null,
      },
      active: true,
      tags: ['a'],
    };
  if (url.includes('add_persons_to_static_cohort')) return { person_ids: [known.ids.personUuid] };
  if (url.includes('remove_person_from_static_cohort')) return { person_id: known.ids.personUuid };
  if (url.includes('/cohorts/'))
    return {
      name: 'Fuzz cohort',
      filters: {
        properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }] }] },
      },
      is_static: false,
    };
  if (url.includes('/insights/'))
    return {
      name: 'Fuzz insight',
      query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } },
      dashboards: [Number(known.ids.dashboard)],
    };
  if (url.includes('/dashboards/')) return { name: 'Fuzz dashboard', description: 'd', pinned: false, tags: [] };
  if (url.includes('/subscriptions/'))
    return {
      insight: Number(known.ids.insight),
      target_type: 'email',
      target_value: 'fuzz@example.com',
      frequency: 'daily',
      interval: 1,
      start_date: '2024-01-01T00:00:00Z',
    };
  if (url.includes('update_property')) return { key: 'plan', value: 'pro' };
  if (url.includes('delete_property')) return { $unset: 'plan' };
  if (url.includes('/split/')) return { main_distinct_id: 'fuzz-person' };
  if (url.includes('bulk_delete')) return { distinct_ids: ['nobody'], delete_events: false };
  if (url.includes('reset_person_distinct_id')) return { distinct_id: 'nobody' };
  if (url.includes('batch_by_distinct_ids')) return { distinct_ids: ['fuzz-person'] };
  if (url.includes('batch_by_uuids')) return { uuids: [known.ids.personUuid] };
  if (url.includes('/persons/')) return { properties: { plan: 'pro' } };
  if (url.includes('add_product_intent')) return { product_type: 'feature_flags', intent_context: 'fuzz' };
  if (url.includes('complete_product_onboarding')) return { type: 'feature_flags' };
  if (url.includes('/sharing/')) return { enabled: false };
  if (url.includes('/session_recordings/')) return { viewed: true };
  if (url.includes('environments')) return { name: 'Fuzz env', timezone: 'UTC', app_urls: [], anonymize_ips: false };
  return { name: 'Fuzz' };
}

/** The existing id a route's path parameter names, when there is one. */
function knownParam(name: string, url: string, known: Known): string {
  if (name === 'project_id') return String(known.projectId);
  if (name === 'person_id') return known.ids.personUuid!;
  if (name === 'event_id') return known.ids.eventUuid ?? '00000000-0000-0000-0000-000000000000';
  if (name === 'recording_id' || url.includes('/session_recordings/')) return 's1';
  for (const [segment, id] of [
    ['/feature_flags/', 'flag'],
    ['/cohorts/', 'cohort'],
    ['/insights/', 'insight'],
    ['/dashboards/', 'dashboard'],
    ['/subscriptions/', 'subscription'],
  ] as const) {
    if (url.includes(segment)) return known.ids[id]!;
  }
  return String(known.projectId);
}

/** Routes left out: they rotate or revoke the keys the fuzz itself uses, or delete what it needs. */
export function fuzzable(route: { method: string; url: string; config?: { methodNotAllowed?: boolean } | undefined }): boolean {
  if (!route.url.startsWith('/api/') || route.config?.methodNotAllowed) return false;
  if (route.method === 'DELETE') return false;
  if (route.method !== 'GET' && /personal_api_keys/.test(route.url)) return false;
  return !/reset_token|rotate_secret_token|delete_secret_token_backup/.test(route.url);
}

export function apiRequest(random: Random, known: Known, routes: Array<{ method: string; url: string }>): FuzzRequest {
  const route = random.pick(routes);
  const path = route.url.replace(/:(\w+)/g, (_, name: string) =>
    random.chance(0.8) ? knownParam(name, route.url, known) : oddSegment(random),
  );
  if (route.method === 'GET') return { method: 'GET', path: `${path}${fuzzQuery(random)}` };
  const template = apiTemplate(route.url, known);
  const text = random.chance(0.1) ? toJson(fuzzValue(random)) : toJson(mutate(random, template));
  const encoded = encodeBody(random, text, true);
  return {
    method: route.method,
    path: `${path}${random.chance(0.1) ? fuzzQuery(random) : ''}`,
    body: encoded.body,
    headers: encoded.headers,
  };
}

/** An HTTP call as the fuzz's setup makes it: JSON in, JSON out, with the personal key unless `anonymous`. */
export type SetupCall = (
  path: string,
  options: { method?: string; body?: unknown; anonymous?: boolean },
) => Promise<{ status: number; body: any }>;

/**
 * One of each thing the routes name (a person, an event, a flag, a cohort, a dashboard, an
 * insight, a subscription), made through the API, so that fuzzed requests reach past their
 * lookups. `settle` waits until what was captured is stored.
 */
export async function prepareKnown(call: SetupCall, projectId: number, token: string, settle: () => Promise<void>): Promise<Known> {
  const known: Known = { projectId, token, ids: {} };
  const base = `/api/projects/${projectId}`;
  const made = async (path: string, body: unknown) => {
    const res = await call(`${base}/${path}`, { method: 'POST', body });
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return String(res.body.id);
  };
  const captured = await call('/batch/', {
    method: 'POST',
    anonymous: true,
    body: { api_key: token, batch: [{ event: '$pageview', distinct_id: 'fuzz-person', properties: { plan: 'pro', $session_id: 's1' } }] },
  });
  if (captured.status !== 200) throw new Error(`/batch/ answered ${captured.status}`);
  await settle();
  known.ids.personUuid = (await call(`${base}/persons/?distinct_id=fuzz-person`, {})).body.results[0].uuid;
  known.ids.eventUuid = (await call(`${base}/events/?limit=1`, {})).body.results[0].id;
  known.ids.flag = await made('feature_flags/', { key: 'fuzz-base', filters: { groups: [{ rollout_percentage: 100 }] } });
  known.ids.cohort = await made('cohorts/', {
    name: 'Fuzz',
    filters: {
      properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }] }] },
    },
  });
  known.ids.dashboard = await made('dashboards/', { name: 'Fuzz' });
  known.ids.insight = await made('insights/', {
    name: 'Fuzz',
    query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } },
  });
  known.ids.subscription = await made('subscriptions/', {
    insight: Number(known.ids.insight),
    target_type: 'email',
    target_value: 'fuzz@example.com',
    frequency: 'daily',
    start_date: '2024-01-01T00:00:00Z',
  });
  return known;
}
