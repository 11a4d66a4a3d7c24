/**
 * An event's stored properties as JSON with a GeoIP answer's additions (geoip-properties.ts),
 * written without merging the additions into the event's objects.
 *
 * Why: merged, an event's properties, `$set` and `$set_once` each grow by a dozen or more keys, and
 * V8 turns objects grown that way key by key into hash tables: slower to grow, to read and to
 * write as JSON. With GeoIP, that was the largest part of preparing an event. The additions' JSON
 * is made once per answer (and only on the thread that writes it), so here it is only appended.
 *
 * The JSON holds the same value `applyGeoipProperties` gives (then `JSON.stringify`); only the
 * order of keys differs: GeoIP's event keys, then `$set` and `$set_once`, come last.
 */
import { growableCopy } from '../../lib/growable-copy.js';
import { wellFormedJson } from '../../lib/well-formed.js';
import type { GeoipAdditions } from './geoip-properties.js';
import { type Properties } from './types.js';
import { isJsonObject } from '../../lib/json-object.js';

/**
 * The properties' JSON with the additions: GeoIP's `$geoip_*` event keys over the event's own,
 * and, when `withPersonUpdates` (the event keeps its `$set` and `$set_once`: it processes its
 * person and is not a `$groupidentify`), `$set` and `$set_once` with GeoIP's keys over the
 * client's. `properties` is read, and given back as it was.
 */
export function propertiesJsonWithGeoip(properties: Properties, additions: GeoipAdditions, withPersonUpdates: boolean): string {
  const text = additionsJson(additions);
  // A client that sends `$geoip_*` properties itself (rare): GeoIP's values replace them where
  // they stand, in a copy.
  const overlapping = sharesKey(properties, additions.event);
  const target = overlapping ? Object.assign(growableCopy(properties), additions.event) : properties;
  const members = overlapping ? [] : [text.event];
  if (!withPersonUpdates) return withMembers(json(target), members);

  const set = target.$set;
  const setOnce = target.$set_once;
  members.push(`"$set":${objectJsonWith(set, additions.set, text.set)}`);
  members.push(`"$set_once":${objectJsonWith(setOnce, additions.setOnce, text.setOnce)}`);
  // Left out of the rest (JSON.stringify skips undefined values), then put back.
  if (set !== undefined) target.$set = undefined;
  if (setOnce !== undefined) target.$set_once = undefined;
  try {
    return withMembers(json(target), members);
  } finally {
    if (set !== undefined) target.$set = set;
    if (setOnce !== undefined) target.$set_once = setOnce;
  }
}

/** The additions as JSON object members (`"$geoip_city_name":"…",…`), made once per answer. */
interface AdditionsJson {
  event: string;
  set: string;
  setOnce: string;
}
const jsonByAdditions = new WeakMap<GeoipAdditions, AdditionsJson>();

function additionsJson(additions: GeoipAdditions): AdditionsJson {
  let text = jsonByAdditions.get(additions);
  if (!text) {
    text = { event: jsonMembers(additions.event), set: jsonMembers(additions.set), setOnce: jsonMembers(additions.setOnce) };
    jsonByAdditions.set(additions, text);
  }
  return text;
}

/** An object's JSON without its braces: `"a":1,"b":2` (empty for an empty object). */
function jsonMembers(object: Readonly<Properties>): string {
  return wellFormedJson(JSON.stringify(object)).slice(1, -1);
}

/**
 * `{...client, ...overlay}` as JSON: a client value that is not an object is replaced, as
 * applyGeoipProperties replaces it.
 */
function objectJsonWith(client: unknown, overlay: Readonly<Properties>, overlayMembers: string): string {
  if (!isJsonObject(client)) return `{${overlayMembers}}`;
  if (sharesKey(client, overlay)) return json(Object.assign(growableCopy(client), overlay));
  return withMembers(json(client), [overlayMembers]);
}

/** Whether `object` has any key of `overlay` (whose keys are few: a GeoIP answer's). */
function sharesKey(object: Properties, overlay: Readonly<Properties>): boolean {
  for (const key in overlay) if (Object.hasOwn(object, key)) return true;
  return false;
}

/** Object JSON with more members (`"k":v` texts, empty ones skipped) after its own. */
function withMembers(objectJson: string, members: string[]): string {
  let added = '';
  for (const member of members) if (member !== '') added += added === '' ? member : `,${member}`;
  if (added === '') return objectJson;
  return objectJson === '{}' ? `{${added}}` : `${objectJson.slice(0, -1)},${added}}`;
}

function json(value: Properties): string {
  return wellFormedJson(JSON.stringify(value));
}
