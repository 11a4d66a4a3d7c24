/**
 * Turns the bytes of a capture / batch / decide request into a JSON value.
 *
 * PostHog clients have sent every combination below over the years, and several are still in the
 * wild, so this accepts the superset on every path (docs/posthog-parity.md):
 *
 * - plain JSON (`application/json`, `text/plain`, or no content type);
 * - gzip, recognised by `Content-Encoding: gzip`, by `compression=gzip|gzip-js`, or by sniffing the
 *   magic bytes `1f 8b` (posthog-js ≥ mid-2026 sends gzip as `text/plain` with no hint at all);
 * - `application/x-www-form-urlencoded` bodies whose `data` field holds JSON, base64(JSON) or
 *   lz-string base64 (`compression=lz64`);
 * - raw base64 bodies (optionally of gzip), and `GET ?data=` (legacy beacon / image requests).
 *
 * Invalid UTF-8 is rejected with 400, as capture-rs does (`invalid UTF8 in request payload`): a
 * lossy decode would silently store U+FFFD in distinct ids and property values, and both PostHog
 * servers refuse such bodies. Lone UTF-16 surrogates written as JSON escapes (`"\ud800"`) are valid
 * JSON and pass through; storage layers must sanitise them (PostHog's `safeClickhouseString`).
 *
 * `NaN`, `Infinity` and `-Infinity` literals (Python SDKs) are read as `null`, as Django and the
 * flags service do. The function never throws.
 */
import { DEFAULT_MAX_JSON_DEPTH, jsonDepthExceeds } from '../lib/json-depth.js';
import { gunzipSync } from 'node:zlib';
import { decompressLz64 } from './lz64.js';

import { type HttpFailure, type JsonValue, type QueryParams, validationFailure } from '../ingestion/core/types.js';

export interface DecodeBodyLimits {
  /** Largest accepted body as received (compressed). PostHog: 2 MiB capture, 20 MiB batch. */
  maxBodyBytes: number;
  /**
   * Largest payload after decompression: decompression stops as soon as it is passed, so a bomb
   * costs what this many bytes cost, whatever it would expand to. PostHog: 100 MiB for events.
   */
  maxDecompressedBytes: number;
  /** Deepest accepted JSON nesting; protects recursive consumers downstream. Default 1000. */
  maxDepth?: number;
}

const MiB = 1024 * 1024;
/**
 * `/e`, `/capture`, `/i/v0/e`, `/engage`, … (one event or posthog-js's few seconds of them). An
 * event over 1 MB is dropped (capture-request.ts MAX_EVENT_BYTES), so 20 MiB holds any request
 * these paths get; PostHog's 100 MiB let a 33 KB lz64 body cost half a second of CPU to refuse.
 */
export const CAPTURE_LIMITS: DecodeBodyLimits = { maxBodyBytes: 2 * MiB, maxDecompressedBytes: 20 * MiB };
/** `/batch`: posthog-node's up to 100 events of up to 1 MB each. */
export const BATCH_LIMITS: DecodeBodyLimits = { maxBodyBytes: 20 * MiB, maxDecompressedBytes: 100 * MiB };
/** `/decide`, `/flags`: small request documents. */
export const DECIDE_LIMITS: DecodeBodyLimits = { maxBodyBytes: 2 * MiB, maxDecompressedBytes: 20 * MiB };

// The depth check and the query type live below the SDK edge, for /api bodies and the ingestion cores too.
export { DEFAULT_MAX_JSON_DEPTH, jsonDepthExceeds };
export type { QueryParams };

export interface DecodeBodyInput {
  /** Raw request body; `undefined`/empty for GET. */
  body: Uint8Array | string | null | undefined;
  /** `Content-Type` header (parameters such as `; charset=utf-8` are ignored). */
  contentType?: string | undefined;
  /** `Content-Encoding` header. */
  contentEncoding?: string | undefined;
  /** Parsed query string: `data`, `compression`, `ver`, `_`, … (already percent-decoded). */
  query?: QueryParams | undefined;
  limits: DecodeBodyLimits;
}

export type Compression = 'gzip' | 'lz64' | 'base64' | 'none';

export interface DecodeBodyOk {
  ok: true;
  value: JsonValue;
  /** How the payload was actually encoded (after sniffing), for metrics and logs. */
  compression: Compression;
  /** Where the payload came from. */
  source: 'body' | 'form' | 'query';
}

export type DecodeBodyResult = DecodeBodyOk | HttpFailure;

type Step<T> = { ok: true; value: T } | HttpFailure;

const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
const STRICT_BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeBody(input: DecodeBodyInput): DecodeBodyResult {
  try {
    return decodeBodyUnsafe(input);
  } catch (error) {
    // Every expected failure is handled explicitly; this is the "never throws" backstop.
    return validationFailure('invalid_payload', `Malformed request data: ${describeError(error)}`);
  }
}

function decodeBodyUnsafe(input: DecodeBodyInput): DecodeBodyResult {
  const { limits } = input;
  const query = input.query ?? {};
  const queryData = firstQueryValue(query, 'data');

  const body = toBuffer(input.body);
  if (body.length > limits.maxBodyBytes || Buffer.byteLength(queryData ?? '') > limits.maxBodyBytes) {
    return tooLarge(`Request body exceeds the ${limits.maxBodyBytes} bytes limit.`);
  }

  let payload: Buffer | string;
  let source: DecodeBodyOk['source'];
  let formCompression: string | undefined;
  if (queryData !== undefined && queryData !== '') {
    // Legacy GET /e/?data=… (and POSTs that carry it in the query): the query wins, as in PostHog.
    payload = queryData;
    source = 'query';
  } else if (body.length === 0) {
    return validationFailure(
      'no_data',
      'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
    );
  } else {
    // A body that opens with `{` or `[` is JSON or gzip-free garbage, never a form (form fields
    // start with a name; a form header on a JSON body is read raw anyway): skip the form sniffing.
    const form = isGzip(body) || body[0] === 0x7b || body[0] === 0x5b ? undefined : readForm(body, input.contentType);
    if (form?.ok === false) return form;
    if (form?.value.data !== undefined) {
      payload = form.value.data;
      formCompression = form.value.compression;
      source = 'form';
    } else {
      payload = body;
      source = 'body';
    }
  }

  const hint =
    compressionHint(firstQueryValue(query, 'compression')) ?? compressionHint(formCompression) ?? compressionHint(input.contentEncoding);

  const text = unwrapToText(payload, hint, limits);
  if (!text.ok) return text;
  const value = parseJson(text.value.text, limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH);
  if (!value.ok) return value;
  return { ok: true, value: value.value, compression: text.value.compression, source };
}

/** Maps PostHog's compression spellings; anything unknown means "no hint", as in capture-rs. */
export function compressionHint(raw: string | undefined): Exclude<Compression, 'none'> | undefined {
  switch (raw?.trim().toLowerCase()) {
    case 'gzip':
    case 'gzip-js':
    case 'x-gzip':
      return 'gzip';
    case 'lz64':
    case 'lz-string':
      return 'lz64';
    case 'base64':
    case 'b64':
      return 'base64';
    default:
      return undefined;
  }
}

function readForm(body: Buffer, contentType: string | undefined): Step<{ data?: string; compression?: string }> | undefined {
  const declaredForm = mediaType(contentType) === FORM_CONTENT_TYPE;
  // Old beacons sent `data=…` with text/plain; recognise the shape, not only the header.
  const head = body.subarray(0, 256).toString('latin1');
  const looksLikeForm = /^(?:[\w$.-]+=[^&{[]*&)*data=/.test(head);
  if (!declaredForm && !looksLikeForm) return undefined;
  const decoded = decodeUtf8(body);
  if (!decoded.ok) return decoded;
  // A form header on a JSON body is a client bug we can tolerate: fall back to reading it raw.
  if (!looksLikeForm && /^\s*[[{]/.test(decoded.value)) return { ok: true, value: {} };
  const form = new URLSearchParams(decoded.value);
  const data = form.get('data') ?? undefined;
  const compression = form.get('compression') ?? undefined;
  return { ok: true, value: { ...(data !== undefined && { data }), ...(compression !== undefined && { compression }) } };
}

interface Unwrapped {
  text: string;
  compression: Compression;
}

/**
 * Peels gzip / lz64 / base64 layers until JSON text remains. At most a few layers are peeled
 * (base64 of gzip of JSON is the deepest shape clients produce), so a payload cannot loop us.
 */
function unwrapToText(payload: Buffer | string, hint: Compression | undefined, limits: DecodeBodyLimits): Step<Unwrapped> {
  let current: Buffer | string = payload;
  let compression: Compression = 'none';
  let lzPending = hint === 'lz64';
  let gzipHinted = hint === 'gzip';
  for (let layer = 0; layer < 4; layer++) {
    if (typeof current !== 'string' && isGzip(current)) {
      const inflated = gunzipCapped(current, limits.maxDecompressedBytes);
      if (!inflated.ok) return inflated;
      current = inflated.value;
      compression = 'gzip';
      gzipHinted = false;
      continue;
    }
    let text: string;
    if (typeof current === 'string') {
      text = current;
    } else {
      const decoded = decodeUtf8(current);
      if (!decoded.ok) return decoded;
      text = decoded.value;
    }
    if (looksLikeJson(text)) return { ok: true, value: { text, compression } };

    if (lzPending) {
      lzPending = false;
      const inflated = lzDecompress(text, limits.maxDecompressedBytes);
      if (!inflated.ok) return inflated;
      current = inflated.value;
      compression = 'lz64';
      continue;
    }
    const base64 = strictBase64(text);
    if (base64 !== undefined) {
      const bytes = Buffer.from(base64, 'base64');
      // A number or a bare word can be valid base64 too; only unwrap when it yields a payload.
      if (isGzip(bytes) || looksLikeJson(bytes.subarray(0, 64).toString('latin1'))) {
        current = bytes;
        if (compression === 'none') compression = 'base64';
        continue;
      }
    }
    if (gzipHinted) {
      return validationFailure('invalid_payload', 'Malformed request data: invalid GZIP data');
    }
    // Not JSON-looking (a scalar, or garbage): let the JSON parser give the precise verdict.
    return { ok: true, value: { text, compression } };
  }
  return validationFailure('invalid_payload', 'Malformed request data: too many encoding layers');
}

function gunzipCapped(bytes: Buffer, maxOutput: number): Step<Buffer> {
  try {
    // maxOutputLength makes zlib stop inflating as soon as the cap is crossed, so a bomb costs at
    // most `maxOutput` bytes of memory instead of its declared size.
    return { ok: true, value: gunzipSync(bytes, { maxOutputLength: Math.max(1, maxOutput) }) };
  } catch (error) {
    if (isErrorCode(error, 'ERR_BUFFER_TOO_LARGE') || error instanceof RangeError) {
      return tooLarge(`Decompressed payload exceeds the ${maxOutput} bytes limit.`);
    }
    return validationFailure('invalid_payload', 'Malformed request data: invalid GZIP data');
  }
}

function lzDecompress(text: string, maxOutput: number): Step<string> {
  // Form decoding turns '+' into ' '; lz-string's base64 alphabet needs it back (as Django did).
  // The output is capped while decoding (a UTF-16 unit is at most as big as the UTF-8 it came
  // from for the ASCII JSON clients send, so the char cap is conservative).
  const result = decompressLz64(text.trim().replace(/ /g, '+'), maxOutput);
  if (!result.ok && result.reason === 'too_large') return tooLarge(`Decompressed payload exceeds the ${maxOutput} bytes limit.`);
  if (!result.ok || result.text === '') return validationFailure('invalid_payload', 'Malformed request data: invalid lz64 data');
  return { ok: true, value: result.text };
}

/** Returns the base64 text to decode, or undefined when `text` is not strict base64. */
function strictBase64(text: string): string | undefined {
  // Spaces come from '+' mangled by form/query decoding; newlines from MIME-style wrapping.
  const candidate = text
    .trim()
    .replace(/ /g, '+')
    .replace(/[\r\n]/g, '');
  if (candidate.length < 4 || !STRICT_BASE64.test(candidate)) return undefined;
  return candidate;
}

function parseJson(text: string, maxDepth: number): Step<JsonValue> {
  if (jsonDepthExceeds(text, maxDepth)) {
    return validationFailure('invalid_payload', `Malformed request data: JSON nested deeper than ${maxDepth} levels`);
  }
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (error) {
    if (/NaN|Infinity/.test(text)) {
      try {
        return { ok: true, value: JSON.parse(replaceNonFiniteLiterals(text)) as JsonValue };
      } catch {
        // fall through to the original error, which describes the client's text
      }
    }
    return validationFailure('invalid_payload', `Malformed request data: Invalid JSON: ${describeError(error)}`);
  }
}

/** Rewrites bare NaN / Infinity / -Infinity tokens (outside strings) to null. */
export function replaceNonFiniteLiterals(text: string): string {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    const token = text.startsWith('NaN', i)
      ? 'NaN'
      : text.startsWith('-Infinity', i)
        ? '-Infinity'
        : text.startsWith('Infinity', i)
          ? 'Infinity'
          : undefined;
    if (token !== undefined) {
      out += text.slice(last, i) + 'null';
      i += token.length - 1;
      last = i + 1;
    }
  }
  return out + text.slice(last);
}

function decodeUtf8(bytes: Buffer): Step<string> {
  try {
    return { ok: true, value: utf8.decode(bytes) };
  } catch {
    return validationFailure('invalid_payload', 'Malformed request data: invalid UTF8 in request payload');
  }
}

function looksLikeJson(text: string): boolean {
  return /^\s*[[{]/.test(text.slice(0, 64));
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function toBuffer(body: DecodeBodyInput['body']): Buffer {
  if (body === null || body === undefined) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function firstQueryValue(query: QueryParams, key: string): string | undefined {
  const value = query[key];
  return Array.isArray(value) ? value[0] : value;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function tooLarge(detail: string): HttpFailure {
  return validationFailure('payload_too_large', detail, 413);
}

function isErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
