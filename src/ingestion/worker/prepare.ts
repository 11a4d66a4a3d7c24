import { toJson } from '../../platform/db/values.js';
import { wellFormedJsonValue, wellFormedText } from '../../lib/well-formed.js';
import type { GeoipService } from '../../geoip/geoip-service.js';
import {
  addRequestContext,
  applyPersonModeToProperties,
  clientIngestionWarning,
  computeEventTimestamp,
  decidePersonProcessing,
  detectMergeRequest,
  extractPersonPropertyUpdate,
  geoipAdditions,
  geoipLookupTarget,
  keepsPersonPropertyUpdates,
  normalizePersonProperties,
  propertiesJsonWithGeoip,
  routeEvent,
  withoutIp,
  type GeoipAdditions,
  type IngestionWarning,
  type MergeRequest,
  type PersonPropertyUpdate,
  type Properties,
} from '../core/index.js';
import type { QueuedEvent } from '../queue.js';
import { isJsonObject } from '../../lib/json-object.js';
import { definitionsOf, type SentScopes } from '../../definitions/core/property-types.js';

/**
 * The steps of an event's processing that read nothing stored (docs/posthog-parity.md):
 * which pipeline it belongs to, timestamp, person mode, normalised properties, the request's
 * context and GeoIP, the properties' JSON, and what the person and group steps will need of them. What is left (dedupe, groups, persons, the
 * writes) needs the database and runs in the batch's transaction (event-pipeline.ts).
 *
 * Because it reads nothing stored, a batch can be prepared ahead, on another thread, while the
 * batch before it is written (prepare-thread.ts): this is half of the worker's JavaScript.
 */

/** The groups an event names, as the groups step needs them (types and keys as stored). */
export interface PreparedGroups {
  /**
   * `$groupidentify`: the group type it makes sure of and, when it has a key, the group it creates
   * or updates with its `$group_set`.
   */
  identified: IdentifiedGroup | undefined;
  /**
   * `$groups: {type: value}`, in order: every type gets an index and the value, whatever it is
   * (a number stays a number), becomes the `$group_<index>` property, as PostHog's
   * `addGroupProperties` copies it.
   */
  attached: Array<[type: string, value: unknown]>;
}

export interface IdentifiedGroup {
  type: string;
  /** Undefined: no usable `$group_key`, so only the type is made sure of. */
  key?: string | undefined;
  set: Properties;
}

export interface PreparedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  /** A deferred person update (`person_only` row of the overflow lane): no event to store. */
  personOnly: boolean;
  /**
   * `process`: the person is created or updated. `personless`: no person profile (the event is
   * attributed to the distinct id's person if there is one). `lookup`: the same attribution, but
   * the event is not personless (error tracking's `$exception`: persons and group types are only
   * read). `drop`: nothing to store or apply (for a person-only row: no person update to make).
   */
  mode: 'process' | 'personless' | 'lookup' | 'drop';
  timestamp: string;
  /** Recorded unless the event turns out to be a duplicate. */
  warnings: IngestionWarning[];
  /** `$set` / `$set_once` / `$unset` for the person. */
  update: PersonPropertyUpdate;
  merge: MergeRequest | undefined;
  groups: PreparedGroups | undefined;
  /** The properties as stored (JSON, well-formed), before the groups step adds `$group_<n>`. */
  propertiesJson: string;
  /**
   * The address whose GeoIP answer `update` carries as overlays (undefined when it carries none):
   * handed to the worker's thread instead of the overlays, it looks the answer up again there
   * (prepare-messages.ts).
   */
  geoipAddress: string | undefined;
  /** The properties have `$group_<n>` keys of their own (the groups step then rewrites them). */
  ownGroupKeys: boolean;
  sessionId: string | null;
  elementsChain: string | null;
  /** The environment's `anonymize_ips` this was prepared with (a batch re-prepares on a change). */
  anonymizeIps: boolean;
  /** The property keys and types the event defines (definitions/core), for the worker's definitions step. */
  definitions: string;
}

/** A row that could not be prepared: its batch fails and is retried one event at a time. */
export interface UnpreparedRow {
  failed: string;
}

export type PreparedRow = PreparedEvent | UnpreparedRow;

export function isUnprepared(row: PreparedRow): row is UnpreparedRow {
  return (row as UnpreparedRow).failed !== undefined;
}

/**
 * A queued event's receipt time (`now`), parsed once per run of equal values: the events of one
 * request are queued together and share it. (A map of every value seen cost more than it saved
 * on streams of single-event requests.)
 */
export class ReceiptClock {
  private last: { now: string; date: Date; iso: string } | undefined = undefined;

  at(now: string): { date: Date; iso: string } {
    const last = this.last;
    if (last !== undefined && last.now === now) return last;
    const date = new Date(now);
    const parsed = { now, date, iso: date.toISOString() };
    this.last = parsed;
    return parsed;
  }
}

export interface PrepareOptions {
  geoip?: GeoipService | undefined;
  /** The environment's `anonymize_ips` setting. */
  anonymizeIps: boolean;
  clock: ReceiptClock;
  /** On the prepare thread: the definitions it sent lately, so each is sent once an hour (definitions/core). */
  definitions?: SentScopes | undefined;
}

const NO_UPDATE: PersonPropertyUpdate = Object.freeze({ set: {}, setOnce: {}, unset: [] }) as PersonPropertyUpdate;
const GROUP_KEYS = ['$group_0', '$group_1', '$group_2', '$group_3', '$group_4'];

/** Step: the event's timestamp from timestamp, sent_at and offset (clock skew, future clamp). */
function resolveTimestamp(queued: QueuedEvent, clock: ReceiptClock, warnings: IngestionWarning[]): string {
  const received = clock.at(queued.now);
  const result = computeEventTimestamp({
    now: received.date,
    timestamp: queued.timestamp,
    sentAt: queued.sent_at ?? undefined,
    offset: queued.offset,
    properties: queued.properties,
    eventUuid: queued.uuid,
    event: queued.event,
  });
  if (result.warnings.length > 0) warnings.push(...result.warnings);
  const ms = result.timestamp.getTime();
  return ms === received.date.getTime() ? received.iso : result.timestamp.toISOString();
}

/** A GeoIP answer for an event: what it adds, and the address looked up. */
interface EventGeoip {
  address: string;
  additions: GeoipAdditions;
}

/**
 * Step: the request's context (`$ip` when the event has none, `$sent_at`, the session id's case),
 * the GeoIP lookup, then the environment's IP anonymisation. `properties` is the event's own copy
 * (normalizePersonProperties made it): these grow it rather than copy it again. GeoIP's additions
 * are not merged into it: they go over the person update and into the JSON (geoip-json.ts).
 */
function enrichWithRequest(
  properties: Properties,
  queued: QueuedEvent,
  options: { geoip?: GeoipService | undefined; anonymizeIps: boolean },
): { properties: Properties; geoip: EventGeoip | undefined } {
  addRequestContext(properties, queued.ip, queued.sent_at);
  let geoip: EventGeoip | undefined;
  if (options.geoip) {
    const target = geoipLookupTarget(properties);
    const lookup = 'ip' in target ? options.geoip.lookup(target.ip) : null;
    if (lookup) geoip = { address: (target as { ip: string }).ip, additions: geoipAdditions(lookup) };
  }
  return { properties: options.anonymizeIps ? withoutIp(properties) : properties, geoip };
}

/**
 * Step: the groups the event names (`$groupidentify`, `$groups`), or undefined when none. Only for
 * events that process a person: PostHog adds `$group_<n>` and upserts groups only then.
 */
function prepareGroups(event: string, properties: Properties): PreparedGroups | undefined {
  const groupsProperty = properties.$groups;
  const identify = event === '$groupidentify';
  if (!identify && !isJsonObject(groupsProperty)) return undefined;
  const identified = identify ? identifiedGroup(properties) : undefined;
  const attached: Array<[string, unknown]> = [];
  if (isJsonObject(groupsProperty)) {
    for (const [rawType, value] of Object.entries(groupsProperty)) attached.push([wellFormedText(rawType), wellFormedJsonValue(value)]);
  }
  return identified || attached.length > 0 ? { identified, attached } : undefined;
}

/**
 * What a `$groupidentify` names (type and key as stored: well-formed text), as PostHog reads it:
 * a falsy `$group_key` (missing, null, "", 0, false) upserts no group (`upsertGroup` returns early),
 * but a `$group_set` still makes sure of the type (`updateGroupsAndFirstEvent`); any other key is
 * its text (`toString`). Undefined when there is nothing to do (or no usable `$group_type`).
 */
export function identifiedGroup(properties: Properties): IdentifiedGroup | undefined {
  const type = properties.$group_type;
  if (typeof type !== 'string' || !type) return undefined;
  const key = properties.$group_key;
  const groupSet = properties.$group_set;
  const set = isJsonObject(groupSet) ? groupSet : {};
  if (key) return { type: wellFormedText(type), key: wellFormedText(String(key)), set };
  return groupSet === undefined || groupSet === null ? undefined : { type: wellFormedText(type), set };
}

/** A string property copied to a text column, well-formed like the JSON it comes from (toJson). */
function textColumn(value: unknown): string | null {
  return typeof value === 'string' ? wellFormedText(value) : null;
}

/**
 * One queued event through the steps that read nothing stored:
 * route → timestamp → person mode → properties → request context and GeoIP → person update →
 * what the person mode removes → groups named → JSON.
 */
export function prepareQueuedEvent(queued: QueuedEvent, options: PrepareOptions): PreparedEvent {
  if (queued.person_only) return prepareDeferredPerson(queued, options);
  const route = routeEvent(queued.event);
  if (route === 'client_ingestion_warning' || route === 'heatmap') return prepareNotStored(queued, route, options.anonymizeIps);
  const warnings: IngestionWarning[] = [];
  const timestamp = resolveTimestamp(queued, options.clock, warnings);
  const source = {
    event: queued.event,
    properties: queued.properties,
    set: queued.set,
    setOnce: queued.set_once,
    unset: queued.unset,
    uuid: queued.uuid,
    distinctId: queued.distinct_id,
  };
  const decision = decidePersonProcessing(source);
  if (decision.warnings.length > 0) warnings.push(...decision.warnings);
  const prepared = nothingFound(queued, options.anonymizeIps, timestamp, warnings);
  const mode = decision.kind === 'process' && route === 'exception' ? 'lookup' : decision.kind;
  prepared.mode = mode;
  if (mode === 'drop') return prepared;

  const { properties, geoip } = enrichWithRequest(normalizePersonProperties(source), queued, options);
  if (mode === 'process') {
    prepared.update = extractPersonPropertyUpdate({ event: queued.event, properties }, geoip?.additions);
    if (prepared.update.setOverlay) prepared.geoipAddress = geoip!.address;
    prepared.merge = detectMergeRequest({ event: queued.event, distinctId: queued.distinct_id, properties });
  }
  applyPersonModeToProperties(properties, queued.event, mode);
  if (mode !== 'personless') {
    prepared.groups = prepareGroups(queued.event, properties);
    if (prepared.groups) prepared.ownGroupKeys = GROUP_KEYS.some((key) => Object.hasOwn(properties, key));
  }
  prepared.propertiesJson = geoip
    ? propertiesJsonWithGeoip(properties, geoip.additions, keepsPersonPropertyUpdates(mode, queued.event))
    : toJson(properties);
  prepared.sessionId = textColumn(properties.$session_id);
  prepared.elementsChain = textColumn(properties.$elements_chain);
  const update = mode === 'process' ? prepared.update : undefined;
  prepared.definitions = definitionsOf(
    queued.event,
    properties,
    {
      event: [geoip?.additions.event],
      person: [update?.set, update?.setOnce, update && geoip?.additions.set, update && geoip?.additions.setOnce],
    },
    options.clock.at(queued.now).date.getTime(),
    options.definitions,
  );
  return prepared;
}

/**
 * Events PostHog's analytics pipeline does not store: a `$$client_ingestion_warning` becomes the
 * ingestion warning it reports (with no timestamp or person step before it), a `$$heatmap` feeds
 * only the heatmaps table, which Hoglet does not have (no event row, no person, no warning).
 */
function prepareNotStored(queued: QueuedEvent, route: 'client_ingestion_warning' | 'heatmap', anonymizeIps: boolean): PreparedEvent {
  const warnings: IngestionWarning[] = [];
  if (route === 'client_ingestion_warning') {
    warnings.push(
      clientIngestionWarning({ uuid: queued.uuid, event: queued.event, distinctId: queued.distinct_id, properties: queued.properties }),
    );
  }
  return nothingFound(queued, anonymizeIps, '', warnings);
}

/**
 * A deferred person update: the person part of an event stored earlier. Its mode's warnings were
 * recorded when the event was; GeoIP is not looked up again (its `$set`s came with the event).
 * Only events that process their person have one (not `$exception`: error tracking only reads it).
 */
function prepareDeferredPerson(queued: QueuedEvent, options: PrepareOptions): PreparedEvent {
  const warnings: IngestionWarning[] = [];
  const source = { event: queued.event, properties: queued.properties, set: queued.set, setOnce: queued.set_once, unset: queued.unset };
  const process = routeEvent(queued.event) === 'analytics' && decidePersonProcessing(source).kind === 'process';
  const timestamp = process ? resolveTimestamp(queued, options.clock, warnings) : '';
  const properties = process
    ? enrichWithRequest(normalizePersonProperties(source), queued, { anonymizeIps: options.anonymizeIps }).properties
    : undefined;
  const prepared = nothingFound(queued, options.anonymizeIps, timestamp, warnings);
  prepared.personOnly = true;
  prepared.mode = properties ? 'process' : 'drop';
  if (properties) {
    prepared.update = extractPersonPropertyUpdate({ event: queued.event, properties });
    prepared.merge = detectMergeRequest({ event: queued.event, distinctId: queued.distinct_id, properties });
  }
  return prepared;
}

/** A prepared event before its steps found anything: no update, merge, groups or properties. */
function nothingFound(queued: QueuedEvent, anonymizeIps: boolean, timestamp: string, warnings: IngestionWarning[]): PreparedEvent {
  return {
    uuid: queued.uuid,
    event: queued.event,
    distinctId: queued.distinct_id,
    personOnly: false,
    mode: 'drop',
    timestamp,
    warnings,
    update: NO_UPDATE,
    merge: undefined,
    groups: undefined,
    propertiesJson: '',
    geoipAddress: undefined,
    ownGroupKeys: false,
    sessionId: null,
    elementsChain: null,
    anonymizeIps,
    definitions: '',
  };
}

/** prepareQueuedEvent for a queue row's payload; a row that fails says why instead of throwing. */
export function prepareRow(payload: string, options: PrepareOptions): PreparedRow {
  try {
    return prepareQueuedEvent(JSON.parse(payload) as QueuedEvent, options);
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The stored properties' JSON with the `$group_<index>` properties the groups step found, as if
 * they had been set on the object before it was written: appended in order, or, when the
 * properties have such keys of their own, set over them. The values are well-formed already
 * (prepareGroups), so their JSON is too.
 */
export function withGroupProperties(propertiesJson: string, ownGroupKeys: boolean, added: Map<string, unknown>): string {
  if (added.size === 0) return propertiesJson;
  if (ownGroupKeys) {
    const properties = JSON.parse(propertiesJson) as Properties;
    for (const [key, value] of added) properties[key] = value;
    return toJson(properties);
  }
  let members = '';
  for (const [key, value] of added) members += `${members ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(value)}`;
  return propertiesJson === '{}' ? `{${members}}` : `${propertiesJson.slice(0, -1)},${members}}`;
}
