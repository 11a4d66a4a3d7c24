/**
 * Fuzzed values as they go on the wire (fuzz-requests.ts): a JSON text in the body shapes clients
 * send, broken (truncated, invalid UTF-8, wrong content types, gzip/lz64/base64 garbage) or whole,
 * and odd path segments and query strings.
 */
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { fuzzValue, oddString, toJson, type Random } from './fuzz-values.js';

/** A JSON document's text in one of the body shapes clients send, or a broken one. */
export function encodeBody(
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
export function oddSegment(random: Random): string {
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

export function oddQueryValue(random: Random): string {
  if (random.chance(0.3)) return random.pick(['%00', '%ED%A0%80', '%FF', '%C3%28', 'a%00b', '%5B%7B%22key%22%3A%22a%00%22%7D%5D']);
  // Kept short: node answers a request line over 16 KB with a bare 431 before any route sees it.
  return percentEncode((random.chance(0.5) ? toJson(fuzzValue(random)) : oddString(random)).slice(0, 600));
}

/** encodeURIComponent, except that a lone surrogate is written as its WTF-8 bytes instead of throwing. */
export function percentEncode(text: string): string {
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

export function fuzzQuery(random: Random, base = ''): string {
  const parts = base ? [base] : [];
  for (let i = random.int(4); i > 0; i--) parts.push(`${random.pick(QUERY_KEYS)}=${oddQueryValue(random)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
