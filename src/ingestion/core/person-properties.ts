/**
 * Person property updates carried by an event, and their application to a person
 * (plugin-server `normalizeEvent`, `personInitialAndUTMProperties`, `person-update.ts`;
 * docs/posthog-parity.md).
 *
 * Pipeline order, as in PostHog: decide whether the event processes a person at all
 * (`decidePersonProcessing`) → merge top-level `$set`/`$set_once` into properties and lift
 * initial/UTM properties (`normalizePersonProperties`) → GeoIP adds its own `$set`/`$set_once`
 * (geoip-properties.ts) → `extractPersonPropertyUpdate` → `applyPersonPropertyUpdate`.
 */
import { growableCopy } from '../../lib/growable-copy.js';
import { type IngestionWarning, type Properties } from './types.js';
import { isJsonObject } from '../../lib/json-object.js';

export interface PersonPropertyUpdate {
  /** Overwrite these keys. */
  set: Properties;
  /** Write these keys only where the person has no value (not even null). */
  setOnce: Properties;
  /** Delete these keys. */
  unset: string[];
  /**
   * Keys over `set` and over `setOnce` (the update is `{...set, ...setOverlay}` and the same for
   * `setOnce`): GeoIP's, kept apart rather than merged into the event's objects (geoip-json.ts).
   */
  setOverlay?: Readonly<Properties> | undefined;
  setOnceOverlay?: Readonly<Properties> | undefined;
}

/** The parts of an event that matter here (ExtractedEvent fits). */
export interface PersonPropertySource {
  event: string;
  properties: Properties;
  /** Top-level `$set` / `$set_once` / `$unset` (posthog-js identify, /engage). */
  set?: Properties | undefined;
  setOnce?: Properties | undefined;
  unset?: unknown;
}

/** Properties PostHog copies from events onto persons (plugin-server `person-property-utils`). */
export const EVENT_TO_PERSON_PROPERTIES: ReadonlySet<string> = new Set([
  '$app_build',
  '$app_name',
  '$app_namespace',
  '$app_version',
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$pathname',
  '$os',
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
]);

/** Campaign parameters (keep in sync with posthog-js CAMPAIGN_PARAMS). */
export const CAMPAIGN_PROPERTIES: ReadonlySet<string> = new Set([
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_name',
  'utm_term',
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'rdt_cid',
  'irclid',
  '_kx',
  'epik',
  'qclid',
  'sccid',
]);

/** Each lifted property with its `$initial_…` name, computed once rather than per event. */
const LIFTED_PROPERTIES: ReadonlyArray<readonly [string, string]> = [...EVENT_TO_PERSON_PROPERTIES, ...CAMPAIGN_PROPERTIES].map(
  (key) => [key, `$initial_${key.replace('$', '')}`] as const,
);
/** A lifted property's place in LIFTED_PROPERTIES (the order `$set`/`$set_once` get their keys in). */
const LIFTED_INDEX: ReadonlyMap<string, number> = new Map(LIFTED_PROPERTIES.map(([key], i) => [key, i]));
const OS_INDEX = LIFTED_INDEX.get('$os')!;

/** Events that never touch persons: other pipelines process them, with no ordering guarantee. */
const NO_PERSON_UPDATE_EVENTS = new Set(['$exception', '$$heatmap', '$groupidentify']);
/** Events whose very purpose is updating the person: every change of theirs is written. */
const PERSON_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$set']);
/** Events that make no sense without a person profile. */
const PERSON_ONLY_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']);
/** Events whose properties are not lifted onto persons. */
const NO_LIFT_EVENTS = new Set(['$snapshot', '$performance_event']);
/** GeoIP keys still worth a write on their own: they are used for segmentation. */
const ALLOWED_GEOIP_PROPERTIES = new Set(['$geoip_country_name', '$geoip_city_name']);

export type PersonProcessingDecision =
  | { kind: 'process'; warnings: IngestionWarning[] }
  /** Store the event without a person profile, with `$set`/`$set_once`/`$unset` stripped. */
  | { kind: 'personless'; warnings: IngestionWarning[] }
  | { kind: 'drop'; warnings: IngestionWarning[] };

/** The event as decidePersonProcessing reads it; uuid and distinct id name it in warnings. */
export interface PersonProcessingSource extends Pick<PersonPropertySource, 'event' | 'properties'> {
  uuid?: string | undefined;
  distinctId?: string | undefined;
}

/**
 * `$process_person_profile: false` (posthog-js `person_profiles: 'identified_only'`) or a project
 * opt-out makes the event personless; identity events are then meaningless and are dropped.
 * A non-boolean flag is ignored with a warning (PostHog `invalid_process_person_profile`).
 * Warning details as PostHog's `normalizeProcessPersonFlagStep` writes them.
 */
export function decidePersonProcessing(event: PersonProcessingSource, options: { projectOptOut?: boolean } = {}): PersonProcessingDecision {
  const flag = event.properties.$process_person_profile;
  const warnings: IngestionWarning[] = [];
  if (flag !== undefined && typeof flag !== 'boolean') {
    warnings.push({
      type: 'invalid_process_person_profile',
      details: {
        ...eventNamed(event),
        $process_person_profile: flag,
        message: 'Only a boolean value is valid for the $process_person_profile property',
      },
    });
  }
  if (flag !== false && !options.projectOptOut) return { kind: 'process', warnings };
  if (PERSON_ONLY_EVENTS.has(event.event)) {
    warnings.push({ type: 'invalid_event_when_process_person_profile_is_false', details: eventNamed(event) });
    return { kind: 'drop', warnings };
  }
  return { kind: 'personless', warnings };
}

/** How PostHog's warnings name the event they are about. */
function eventNamed(event: PersonProcessingSource): Record<string, unknown> {
  return { eventUuid: event.uuid, event: event.event, distinctId: event.distinctId };
}

/**
 * plugin-server `normalizeEvent` for persons: returns new event properties where
 * `properties.$set`/`$set_once` include the top-level ones (top-level wins on conflicts) and the
 * lifted initial/UTM properties. The input is not modified.
 */
export function normalizePersonProperties(source: PersonPropertySource): Properties {
  const properties: Properties = growableCopy(source.properties);
  if (source.set) properties.$set = { ...asObject(properties.$set), ...source.set };
  if (source.setOnce) properties.$set_once = { ...asObject(properties.$set_once), ...source.setOnce };
  if (source.unset !== undefined && source.unset !== null) {
    properties.$unset = [...unsetKeys(properties.$unset), ...unsetKeys(source.unset)];
  }
  // `properties` is this function's own copy: the lifted fields go straight into it.
  if (!NO_LIFT_EVENTS.has(source.event)) liftInto(properties);
  return properties;
}

/**
 * PostHog's `personInitialAndUTMProperties`: each lifted property on the event goes to `$set`
 * (unless the event's own `$set` has the key: explicit beats automatic) and, when not null, to
 * `$set_once` as `$initial_<name without $>`. Nulls stay out of `$set_once` because browsers send
 * absent campaign params as null and a null would block the real first touch forever.
 * Server SDKs (`$is_server: true`) describe the host OS, not the user's, so `$os*` is skipped;
 * `$os_name` (some SDKs) is an alias of `$os`.
 */
export function liftInitialAndCampaignProperties(properties: Properties): Properties {
  const lifted = growableCopy(properties);
  return liftInto(lifted) ? lifted : properties;
}

/** liftInitialAndCampaignProperties on properties the caller owns; false when nothing was lifted. */
function liftInto(properties: Properties): boolean {
  // The event's keys are looked up in LIFTED_INDEX (a dozen map reads) rather than each of the 43
  // lifted names in the event; the found ones are taken in LIFTED_PROPERTIES order, so `$set` and
  // `$set_once` get their keys in that order, as when every name was tried in turn.
  const skipHostOs = properties.$is_server === true;
  // `$os_name` stands in for a missing `$os`; read through this instead of copying the properties.
  const osAlias = properties.$os === undefined && properties.$os_name !== undefined;
  let found: number[] | undefined;
  for (const key in properties) {
    const index = LIFTED_INDEX.get(key);
    if (index === undefined || !Object.hasOwn(properties, key)) continue;
    if (skipHostOs && (key === '$os' || key === '$os_version')) continue;
    (found ??= []).push(index);
  }
  if (osAlias && !skipHostOs && !(found?.includes(OS_INDEX) ?? false)) (found ??= []).push(OS_INDEX);
  let set: Properties | undefined;
  let setOnce: Properties | undefined;
  if (found) {
    // Usually a handful of indexes, mostly in order already: insertion sort.
    for (let a = 1; a < found.length; a++) {
      const value = found[a]!;
      let b = a - 1;
      while (b >= 0 && found[b]! > value) {
        found[b + 1] = found[b]!;
        b--;
      }
      found[b + 1] = value;
    }
    // Copies that are going to get new keys (growableCopy says why not a spread).
    set = growableCopy(asObject(properties.$set));
    setOnce = growableCopy(asObject(properties.$set_once));
    for (const index of found) {
      const [key, initialKey] = LIFTED_PROPERTIES[index]!;
      const value = key === '$os' && osAlias ? properties.$os_name : properties[key];
      if (!(key in set)) setOwn(set, key, value);
      if (value !== null && value !== undefined && !(initialKey in setOnce)) setOwn(setOnce, initialKey, value);
    }
  }
  if (!skipHostOs && properties.$os === null && properties.$os_name !== undefined && properties.$os_name !== null) {
    setOnce ??= growableCopy(asObject(properties.$set_once));
    if (!('$initial_os' in setOnce)) setOnce.$initial_os = properties.$os_name;
  }
  if (set) properties.$set = set;
  if (setOnce) properties.$set_once = setOnce;
  return set !== undefined || setOnce !== undefined;
}

/**
 * The update an event asks for, read from (normalised) properties: `$set`, `$set_once` and
 * `$unset` (an array of names, or an object whose keys are the names). Malformed fields are
 * ignored. `$exception`, `$$heatmap` and `$groupidentify` never update persons.
 */
export function extractPersonPropertyUpdate(
  event: Pick<PersonPropertySource, 'event' | 'properties'>,
  geoip?: { set: Readonly<Properties>; setOnce: Readonly<Properties> },
): PersonPropertyUpdate {
  if (NO_PERSON_UPDATE_EVENTS.has(event.event)) return { set: {}, setOnce: {}, unset: [] };
  // The event's own objects, not copies: an update is only read (every application builds new
  // property objects), and copying them was a visible part of the worker's per-event cost.
  // GeoIP's keys (when not merged into the event's `$set`/`$set_once` already) go over them.
  return {
    set: asObject(event.properties.$set),
    setOnce: asObject(event.properties.$set_once),
    unset: unsetKeys(event.properties.$unset),
    setOverlay: geoip?.set,
    setOnceOverlay: geoip?.setOnce,
  };
}

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

function unsetKeys(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.filter((key): key is string => typeof key === 'string');
  if (isJsonObject(raw)) return Object.keys(raw);
  return [];
}

function asObject(value: unknown): Properties {
  return isJsonObject(value) ? value : {};
}

/**
 * Assignment that cannot hit `__proto__` setters: property names come from clients. Only that one
 * name reaches a setter on a plain object, so every other key takes the (much faster) plain
 * assignment; this runs for every lifted property of every event.
 */
function setOwn(target: Properties, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
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
