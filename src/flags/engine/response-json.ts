/**
 * The JSON text of the two bodies SDKs ask for on every page load (legacy `flags_v1`, which is
 * decide v3, and detailed `flags_v2`), written straight from the evaluation. It is exactly
 * `JSON.stringify` of the projection in response-projection.ts, with the legacy payload map as
 * JSON text (what posthog-js parses), but without building the intermediate objects: with fifty
 * flags, the projection's dictionary-mode objects and a generic stringify cost more than the
 * whole evaluation. Texts that repeat on every request (flag keys, variants, payloads, reasons,
 * metadata) are quoted once and memoised.
 */
import { projectedValue, type FlagsResponseProtocol, type ProjectionExtras } from './response-projection.js';
import type { FlagEvaluation, FlagReason, FlagSetEvaluation } from './types.js';

/** JSON string literals of short texts that recur across requests (keys, variants, payload texts). */
const quotedTexts = new Map<string, string>();
const QUOTED_LIMIT = 20_000;
const QUOTED_MAX_LENGTH = 2048;

function quote(text: string): string {
  if (text.length > QUOTED_MAX_LENGTH) return JSON.stringify(text);
  let quoted = quotedTexts.get(text);
  if (quoted === undefined) {
    if (quotedTexts.size >= QUOTED_LIMIT) quotedTexts.clear();
    quotedTexts.set(text, (quoted = JSON.stringify(text)));
  }
  return quoted;
}

/** Any JSON value; strings through the memo. */
function json(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  return JSON.stringify(value) ?? 'null';
}

/** Reasons and metadata objects are shared between requests (see reasons.ts, compiled-definitions.ts). */
const reasonTexts = new WeakMap<FlagReason, string>();
const metadataHeads = new WeakMap<FlagEvaluation['metadata'], string>();

function reasonJson(reason: FlagReason): string {
  let text = reasonTexts.get(reason);
  if (text === undefined) {
    text = JSON.stringify({ ...reason });
    if (Object.isFrozen(reason)) reasonTexts.set(reason, text);
  }
  return text;
}

/** `{"id":…,"version":…,"description":null,"payload":` of a metadata object. */
function metadataHead(metadata: FlagEvaluation['metadata']): string {
  let head = metadataHeads.get(metadata);
  if (head === undefined) {
    head = `{"id":${json(metadata.id)},"version":${json(metadata.version)},"description":null,"payload":`;
    if (Object.isFrozen(metadata)) metadataHeads.set(metadata, head);
  }
  return head;
}

function extrasJson(extras: ProjectionExtras): string {
  let text = '';
  if (extras.quotaLimited) text += `,"quotaLimited":${JSON.stringify(extras.quotaLimited)}`;
  // New per request: written directly, past the memo of quoted texts (they would churn it).
  if (extras.requestId !== undefined) text += `,"requestId":${JSON.stringify(extras.requestId)}`;
  if (extras.evaluatedAt !== undefined) text += `,"evaluatedAt":${JSON.stringify(extras.evaluatedAt)}`;
  return text;
}

/** Legacy payloads are JSON text: a stored string as it is, anything else serialised first. */
function payloadAsText(payload: unknown): string {
  return quote(typeof payload === 'string' ? payload : JSON.stringify(payload));
}

/**
 * `head` opens the object: `{`, or `{` followed by other members and a comma (the HTTP layer puts
 * the environment's config members first this way, without joining two texts afterwards).
 */
function checkedHead(head: string): string {
  if (!head.startsWith('{') || (head !== '{' && !head.endsWith(','))) throw new Error('a JSON object head is "{" or "{…,"');
  return head;
}

/**
 * A result's legacy members, `"key":value` and `"key":"payload text"` ('' when it has none), each
 * also with the comma that joins it to the one before.
 */
interface V1Members {
  value: string;
  joinedValue: string;
  payload: string;
  joinedPayload: string;
}

/** The members of frozen results: evaluation shares them between requests (toFlagEvaluation). */
const v1MemberTexts = new WeakMap<FlagEvaluation, V1Members>();

function v1Members(flag: FlagEvaluation): V1Members {
  let members = v1MemberTexts.get(flag);
  if (members === undefined) {
    const value = projectedValue(flag);
    const key = quote(flag.key);
    const valueText = `${key}:${value === true ? 'true' : value === false ? 'false' : quote(value)}`;
    const payloadText =
      value !== false && flag.payload !== null && flag.payload !== undefined ? `${key}:${payloadAsText(flag.payload)}` : '';
    members = { value: valueText, joinedValue: `,${valueText}`, payload: payloadText, joinedPayload: `,${payloadText}` };
    if (Object.isFrozen(flag)) v1MemberTexts.set(flag, members);
  }
  return members;
}

/** `{"featureFlags":{…},"featureFlagPayloads":{…},"errorsWhileComputingFlags":…}` (+ extras). */
export function flagsV1Json(evaluation: FlagSetEvaluation, extras: ProjectionExtras = {}, head = '{'): string {
  let values = '';
  let payloads = '';
  for (const flag of evaluation.results) {
    const members = v1Members(flag);
    values += values === '' ? members.value : members.joinedValue;
    if (members.payload !== '') payloads += payloads === '' ? members.payload : members.joinedPayload;
  }
  return `${checkedHead(head)}"featureFlags":{${values}},"featureFlagPayloads":{${payloads}},"errorsWhileComputingFlags":${evaluation.errorsWhileComputingFlags}${extrasJson(extras)}}`;
}

/** `{"flags":{key: details},"errorsWhileComputingFlags":…}` (+ extras). */
export function flagsV2Json(evaluation: FlagSetEvaluation, extras: ProjectionExtras = {}, head = '{'): string {
  let flags = '';
  for (const flag of evaluation.results) {
    const key = quote(flag.key);
    const enabled = projectedValue(flag) !== false;
    const variant = flag.failed ? null : flag.variant;
    const payload = flag.failed ? null : (flag.payload ?? null);
    flags +=
      `${flags === '' ? '' : ','}${key}:{"key":${key},"enabled":${enabled},"variant":${json(variant)},` +
      `"reason":${reasonJson(flag.reason)},"metadata":${metadataHead(flag.metadata)}${json(payload)},"has_experiment":false}` +
      `${flag.failed ? ',"failed":true' : ''}}`;
  }
  return `${checkedHead(head)}"flags":{${flags}},"errorsWhileComputingFlags":${evaluation.errorsWhileComputingFlags}${extrasJson(extras)}}`;
}

/** The JSON text of `protocol`'s body, when it is one of the two written directly; else null. */
export function flagsResponseJson(
  evaluation: FlagSetEvaluation,
  protocol: FlagsResponseProtocol,
  extras: ProjectionExtras = {},
  head = '{',
): string | null {
  if (protocol === 'flags_v1') return flagsV1Json(evaluation, extras, head);
  if (protocol === 'flags_v2') return flagsV2Json(evaluation, extras, head);
  return null;
}
