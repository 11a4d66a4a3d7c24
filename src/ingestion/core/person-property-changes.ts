/**
 * A person property update applied to a person (plugin-server `person-update.ts`;
 * docs/posthog-parity.md): what changes, whether it is worth a write, and the properties of a
 * person an event creates. The update itself is read from the event in person-properties.ts.
 */
import { setOwn } from '../../lib/json-object.js';
import { CAMPAIGN_PROPERTIES, EVENT_TO_PERSON_PROPERTIES, type PersonPropertyUpdate } from './person-properties.js';
import type { Properties } from './types.js';

/** Events whose very purpose is updating the person: every change of theirs is written. */
const PERSON_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$set']);
/** GeoIP keys still worth a write on their own: they are used for segmentation. */
const ALLOWED_GEOIP_PROPERTIES = new Set(['$geoip_country_name', '$geoip_city_name']);

export interface PersonPropertyChanges {
  /** Keys whose value changes (including `$set_once` keys new to the person). */
  toSet: Properties;
  /** Keys present on the person that are removed. */
  toUnset: string[];
  /** Anything differs at all. */
  hasChanges: boolean;
  /**
   * PostHog's write filter: for ordinary events, changes limited to volatile keys that already
   * exist (current URL, browser, most `$geoip_*`, …) do not justify a person write on their own.
   * Person events (`$identify`, `$set`, …) always persist their changes.
   */
  shouldPersist: boolean;
}

/**
 * Precedence, as PostHog: `$set_once` applies only to keys the person lacks (a stored null counts
 * as present); `$set` then overwrites, so it wins over `$set_once` in the same event; `$unset`
 * removes keys the person had before this event. Values are compared deeply (PostHog compares by
 * identity and so treats every object value as changed; deep comparison only avoids useless writes).
 */
export function computePersonPropertyChanges(current: Properties, update: PersonPropertyUpdate, eventName: string): PersonPropertyChanges {
  const personEvent = PERSON_EVENTS.has(eventName);
  // Most events change nothing: no objects or arrays are made for them (`toSet`, `toUnset`).
  const found: FoundChanges = { toSet: undefined, setCount: 0, triggers: false };
  // `{...setOnce, ...setOnceOverlay}` key by key, in that object's order, without building it:
  // the base's keys (the overlay's value where it has the key), then the overlay's other keys.
  const onceBase = update.setOnce;
  const onceOverlay = update.setOnceOverlay ?? NO_OVERLAY;
  for (const key of Object.keys(onceBase))
    setOnceChange(found, current, key, Object.hasOwn(onceOverlay, key) ? onceOverlay[key] : onceBase[key]);
  for (const key of Object.keys(onceOverlay)) if (!Object.hasOwn(onceBase, key)) setOnceChange(found, current, key, onceOverlay[key]);
  const setBase = update.set;
  const setOverlay = update.setOverlay ?? NO_OVERLAY;
  for (const key of Object.keys(setBase))
    setChange(found, current, key, Object.hasOwn(setOverlay, key) ? setOverlay[key] : setBase[key], personEvent);
  for (const key of Object.keys(setOverlay)) if (!Object.hasOwn(setBase, key)) setChange(found, current, key, setOverlay[key], personEvent);
  const { toSet, setCount } = found;
  let triggers = found.triggers;
  let toUnset = NO_KEYS;
  if (update.unset.length > 0) {
    toUnset = update.unset.filter((key) => Object.hasOwn(current, key));
    if (toUnset.length > 0) triggers = true;
  }

  const hasChanges = setCount > 0 || toUnset.length > 0;
  return { toSet: toSet ?? {}, toUnset, hasChanges, shouldPersist: hasChanges && (personEvent || triggers) };
}

const NO_KEYS: string[] = [];
const NO_OVERLAY: Readonly<Properties> = Object.freeze({});

/** What computePersonPropertyChanges has found so far (module functions, no closure per event). */
interface FoundChanges {
  toSet: Properties | undefined;
  setCount: number;
  triggers: boolean;
}

/** A `$set_once` key: written only where the person has no value. */
function setOnceChange(found: FoundChanges, current: Properties, key: string, value: unknown): void {
  if (Object.hasOwn(current, key)) return;
  const toSet = (found.toSet ??= {});
  if (!Object.hasOwn(toSet, key)) found.setCount++;
  setOwn(toSet, key, value);
  found.triggers = true; // a key new to the person is always worth writing
}

/** A `$set` key: written where the value differs (over a `$set_once` of the same key). */
function setChange(found: FoundChanges, current: Properties, key: string, value: unknown, personEvent: boolean): void {
  const existed = Object.hasOwn(current, key);
  if (existed && jsonEqual(current[key], value)) return;
  const toSet = (found.toSet ??= {});
  if (!Object.hasOwn(toSet, key)) found.setCount++;
  setOwn(toSet, key, value);
  if (!existed || personEvent || !isVolatilePersonProperty(key)) found.triggers = true;
}

export interface AppliedPersonUpdate {
  /** New property object (the input is not modified). */
  properties: Properties;
  changed: boolean;
  shouldPersist: boolean;
}

/** Applies an update to a person's properties; see `computePersonPropertyChanges` for the rules. */
export function applyPersonPropertyUpdate(current: Properties, update: PersonPropertyUpdate, eventName: string): AppliedPersonUpdate {
  const changes = computePersonPropertyChanges(current, update, eventName);
  if (!changes.hasChanges) return { properties: current, changed: false, shouldPersist: false };
  return { properties: withPersonPropertyChanges(current, changes), changed: true, shouldPersist: changes.shouldPersist };
}

/** New properties: `current` with `changes` applied (the input is not modified). */
export function withPersonPropertyChanges(current: Properties, changes: Pick<PersonPropertyChanges, 'toSet' | 'toUnset'>): Properties {
  const properties: Properties = { ...current, ...changes.toSet };
  for (const key of changes.toUnset) delete properties[key];
  return properties;
}

/**
 * Properties of a person created by this event: `$set_once` first, `$set` over it, and the uuid of
 * the event that created it (PostHog `person-create-service.ts`, for plain creations and for the
 * person an identify or alias creates for two new distinct ids alike).
 */
export function propertiesForNewPerson(update: PersonPropertyUpdate, creatorEventUuid: string): Properties {
  return { ...update.setOnce, ...update.setOnceOverlay, ...update.set, ...update.setOverlay, $creator_event_uuid: creatorEventUuid };
}

/** Keys that change on every page view; PostHog does not write a person just for them. */
export function isVolatilePersonProperty(key: string): boolean {
  if (EVENT_TO_PERSON_PROPERTIES.has(key) || CAMPAIGN_PROPERTIES.has(key)) return true;
  return key.startsWith('$geoip_') && !ALLOWED_GEOIP_PROPERTIES.has(key);
}

/** Structural equality for JSON values (key order of objects does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  if (aKeys.length !== Object.keys(bRecord).length) return false;
  return aKeys.every((key) => Object.hasOwn(bRecord, key) && jsonEqual((a as Record<string, unknown>)[key], bRecord[key]));
}
