/**
 * What ingestion learns about an event for the definitions (PostHog's property-defs-rs,
 * `detect_property_type` and `into_updates`): the property keys it carries, per kind (event,
 * person through `$set`/`$set_once`, group through a `$groupidentify`'s `$group_set`), and each
 * value's type as PostHog infers it from the first value seen.
 */
export type PropertyValueType = 'DateTime' | 'String' | 'Numeric' | 'Boolean';

/** PostHog's PropertyDefinition.Type: 1 event, 2 person, 3 group. */
export const PROPERTY_KINDS = { event: 1, person: 2, group: 3 } as const;
export type PropertyKind = keyof typeof PROPERTY_KINDS;

/** Event properties with a meaning of their own, which get no definition (SKIP_PROPERTIES). */
const SKIP_EVENT_PROPERTIES = new Set([
  '$set',
  '$set_once',
  '$unset',
  '$group_0',
  '$group_1',
  '$group_2',
  '$group_3',
  '$group_4',
  '$groups',
]);

/** Events PostHog makes no definitions for. */
const EVENTS_WITHOUT_DEFINITIONS = new Set(['$$plugin_metrics']);

/** PostHog's Postgres column is 400 characters; longer names are skipped there, and here. */
export const MAX_NAME_LENGTH = 400;

/** Past this many properties on one event PostHog records none of them (its skip threshold). */
const MAX_PROPERTIES_PER_EVENT = 10_000;

const DATETIME_NAME_KEYWORDS = ['time', 'timestamp', 'date', '_at', '-at', 'createdat', 'updatedat'];
const DATETIME_PREFIX =
  /^(([0-9]{4}[/-][0-2][0-9][/-][0-3][0-9])|([0-2][0-9][/-][0-3][0-9][/-][0-9]{4}))([ T][0-2][0-9]:[0-6][0-9]:[0-6][0-9].*)?$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const RFC2822 = /^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|[A-Z]{2,3})$/;
const SIX_MONTHS_S = 15_768_000;

function isLikelyDateString(s: string): boolean {
  return RFC3339.test(s) || RFC2822.test(s) || DATETIME_PREFIX.test(s);
}

/** A non-negative integer from six months before `nowS` on (PostHog's `is_likely_unix_timestamp`). */
function isLikelyUnixTimestamp(n: number, nowS: number): boolean {
  return Number.isInteger(n) && n >= 0 && n >= nowS - SIX_MONTHS_S;
}

/** The type PostHog gives a property from its key and first value; null for null, objects and arrays. */
export function detectPropertyType(key: string, value: unknown, nowMs: number): PropertyValueType | null {
  const k = key.toLowerCase();
  if (k.startsWith('utm_') || k.startsWith('$initial_utm_') || k.startsWith('$feature/')) return 'String';
  if (k === '$feature_flag_response' || k.startsWith('$survey_response')) return 'String';
  if (DATETIME_NAME_KEYWORDS.some((kw) => k.includes(kw))) {
    if (typeof value === 'string' && isLikelyDateString(value)) return 'DateTime';
    if (typeof value === 'number' && isLikelyUnixTimestamp(value, Math.floor(nowMs / 1000))) return 'DateTime';
  }
  if (typeof value === 'string') {
    const s = value.trim();
    if (s === 'true' || s === 'false' || s === 'TRUE' || s === 'FALSE') return 'Boolean';
    return isLikelyDateString(s) ? 'DateTime' : 'String';
  }
  if (typeof value === 'number') return 'Numeric';
  if (typeof value === 'boolean') return 'Boolean';
  return null;
}

/** One letter per type in the compact form below; `-` for none. */
const TYPE_CODES: Record<PropertyValueType, string> = { DateTime: 'D', String: 'S', Numeric: 'N', Boolean: 'B' };
const CODE_TYPES: Record<string, PropertyValueType | null> = { D: 'DateTime', S: 'String', N: 'Numeric', B: 'Boolean', '-': null };
const KIND_CODES: Record<PropertyKind, string> = { event: 'e', person: 'p', group: 'g' };
const CODE_KINDS: Record<string, PropertyKind> = { e: 'event', p: 'person', g: 'group' };

type Props = Record<string, unknown>;

/**
 * The keys a preparing thread has sent lately, per scope (an event of a team, a team's persons, a
 * group type of a team), so an event whose keys were all sent within the hour sends none: typing
 * every key of every event cost the prepare thread as much again as the rest of its work. Started
 * over every hour (and when it grows past MAX_SCOPES), so a definition whose batch was rolled back
 * is sent again within the hour, and one first seen without a type (null) gets its type then.
 */
export class SentDefinitions {
  private hour = -1;
  private count = 0;
  /** Team → scope (`e` and the event, `p`, `g` and the group type) → keys. */
  private readonly teams = new Map<number, Map<string, Set<string>>>();

  /** The keys sent in this scope; `nowMs` (the real clock) starts the memo over each hour. */
  scope(teamId: number, name: string, nowMs: number): Set<string> {
    const hour = Math.floor(nowMs / 3_600_000);
    if (hour !== this.hour || this.count >= MAX_SCOPES) {
      this.teams.clear();
      this.count = 0;
      this.hour = hour;
    }
    let scopes = this.teams.get(teamId);
    if (!scopes) this.teams.set(teamId, (scopes = new Map()));
    let keys = scopes.get(name);
    if (!keys) {
      scopes.set(name, (keys = new Set()));
      this.count++;
    }
    return keys;
  }
}

const MAX_SCOPES = 50_000;

/** What `definitionsOf` skips: the memo and the scopes this event's keys are in. */
export interface SentScopes {
  sent: SentDefinitions;
  teamId: number;
  /** The real clock, for the memo's hours (the types read the event's receipt time). */
  clockMs: number;
}

function appendEntries(out: string[], kind: PropertyKind, props: Props, nowMs: number, sent: Set<string> | undefined): void {
  for (const key in props) {
    if (!Object.hasOwn(props, key)) continue;
    if (sent !== undefined) {
      if (sent.has(key)) continue;
      sent.add(key);
    }
    if (kind === 'event' && SKIP_EVENT_PROPERTIES.has(key)) continue;
    // A newline would break the compact form; PostHog's names cannot hold one usefully either.
    if (key.length === 0 || key.length > MAX_NAME_LENGTH || key.includes('\n')) continue;
    const type = detectPropertyType(key, props[key], nowMs);
    out.push(`${KIND_CODES[kind]}${type ? TYPE_CODES[type] : '-'}${key}`);
  }
}

const isObject = (v: unknown): v is Props => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The definitions an event carries, as one string (it crosses from the prepare thread, and equal
 * strings let the worker skip events it has seen the like of): lines of kind letter, type letter
 * and key. `event` and `person` are the objects whose keys are the event's and the person's
 * properties (GeoIP's additions are objects of their own). A `$groupidentify` carries only its
 * `$group_set`'s keys (its group type is the event's). Empty for an event that defines nothing
 * beyond its name.
 */
export function definitionsOf(
  event: string,
  properties: Props,
  more: { event: ReadonlyArray<Props | undefined>; person: ReadonlyArray<Props | undefined> },
  nowMs: number,
  skip?: SentScopes,
): string {
  if (EVENTS_WITHOUT_DEFINITIONS.has(event)) return '';
  const out: string[] = [];
  if (event === '$groupidentify') {
    const groupSet = properties.$group_set;
    const groupType = properties.$group_type;
    if (typeof groupType === 'string' && isObject(groupSet))
      appendEntries(out, 'group', groupSet, nowMs, skip?.sent.scope(skip.teamId, `g${groupType}`, skip.clockMs));
  } else {
    const eventKeys = skip?.sent.scope(skip.teamId, `e${event}`, skip.clockMs);
    appendEntries(out, 'event', properties, nowMs, eventKeys);
    for (const props of more.event) if (props) appendEntries(out, 'event', props, nowMs, eventKeys);
    const personKeys = skip?.sent.scope(skip.teamId, 'p', skip.clockMs);
    for (const props of more.person) if (props) appendEntries(out, 'person', props, nowMs, personKeys);
  }
  return out.length > MAX_PROPERTIES_PER_EVENT ? '' : out.join('\n');
}

export interface DefinitionEntry {
  kind: PropertyKind;
  type: PropertyValueType | null;
  key: string;
}

/** The entries of `definitionsOf`'s string. */
export function parseDefinitions(text: string): DefinitionEntry[] {
  if (text === '') return [];
  return text.split('\n').map((line) => ({ kind: CODE_KINDS[line[0]!]!, type: CODE_TYPES[line[1]!] ?? null, key: line.slice(2) }));
}

/** Whether an event name can have a definition (PostHog skips names its column cannot hold). */
export function definableEventName(event: string): boolean {
  return event.length > 0 && event.length <= MAX_NAME_LENGTH && !EVENTS_WITHOUT_DEFINITIONS.has(event);
}
