/**
 * Person property updates carried by an event (plugin-server `normalizeEvent`,
 * `personInitialAndUTMProperties`; docs/posthog-parity.md). Their application to a person is in
 * person-property-changes.ts.
 *
 * Pipeline order, as in PostHog: decide whether the event processes a person at all
 * (`decidePersonProcessing`) → merge top-level `$set`/`$set_once` into properties and lift
 * initial/UTM properties (`normalizePersonProperties`) → GeoIP adds its own `$set`/`$set_once`
 * (geoip-properties.ts) → `extractPersonPropertyUpdate` → `applyPersonPropertyUpdate`.
 */
import { growableCopy } from '../../lib/growable-copy.js';
import { type IngestionWarning, type Properties } from './types.js';
import { isJsonObject, setOwn } from '../../lib/json-object.js';

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
/** Events that make no sense without a person profile. */
const PERSON_ONLY_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']);
/** Events whose properties are not lifted onto persons. */
const NO_LIFT_EVENTS = new Set(['$snapshot', '$performance_event']);

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

function unsetKeys(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.filter((key): key is string => typeof key === 'string');
  if (isJsonObject(raw)) return Object.keys(raw);
  return [];
}

function asObject(value: unknown): Properties {
  return isJsonObject(value) ? value : {};
}
