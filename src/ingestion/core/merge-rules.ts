/**
 * Identify / alias / merge decisions (plugin-server `person-merge-service.ts`,
 * `person-utils.ts:isDistinctIdIllegal`; docs/posthog-parity.md), as pure functions.
 * The storage layer fetches the two persons, asks `decideMerge` what to do, and performs it.
 *
 * Vocabulary, PostHog's: the event's `distinct_id` is the *into* (target) id, whose person
 * survives; `$anon_distinct_id` (identify) or `alias` (alias, merge) is the *other* (source) id,
 * whose person is folded in and deleted.
 */
import { wellFormedText } from '../../lib/well-formed.js';
import type { IngestionWarning, Properties } from './types.js';

// Ids that come from bugs (`String(undefined)`, template placeholders, …). Merging on one of
// them would glue unrelated users into a single person, so PostHog refuses.
const BARE_CASE_INSENSITIVE_ILLEGAL_IDS = [
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
];
// Only these exact spellings: `NaN` is a bug, `nan` may be someone's name.
const BARE_CASE_SENSITIVE_ILLEGAL_IDS = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined'];

const withQuotes = (ids: string[]): string[] => [...ids, ...ids.map((id) => `'${id}'`), ...ids.map((id) => `"${id}"`)];
const CASE_INSENSITIVE_ILLEGAL_IDS = new Set(withQuotes(BARE_CASE_INSENSITIVE_ILLEGAL_IDS));
const CASE_SENSITIVE_ILLEGAL_IDS = new Set(withQuotes(BARE_CASE_SENSITIVE_ILLEGAL_IDS));

/** PostHog's blocklist: blank, or a known placeholder (optionally wrapped in ' or "). */
export function isDistinctIdIllegal(id: string): boolean {
  return id.trim() === '' || CASE_INSENSITIVE_ILLEGAL_IDS.has(id.toLowerCase()) || CASE_SENSITIVE_ILLEGAL_IDS.has(id);
}

export type MergeKind = '$identify' | '$create_alias' | '$merge_dangerously';

export interface MergeRequest {
  kind: MergeKind;
  /** The event's distinct_id: its person survives. */
  intoDistinctId: string;
  /** `$anon_distinct_id` or `alias`: its person is merged in. */
  otherDistinctId: string;
}

/**
 * Which events ask for a merge: `$identify` with a `$anon_distinct_id` property (any value; PostHog
 * stringifies it, so `null` becomes the illegal "null"), and `$create_alias` / `$merge_dangerously`
 * with a truthy `alias` property. Everything else (including a plain `$identify`) is not a merge.
 */
export function detectMergeRequest(event: { event: string; distinctId: string; properties: Properties }): MergeRequest | undefined {
  const { properties } = event;
  if ((event.event === '$create_alias' || event.event === '$merge_dangerously') && properties.alias) {
    return { kind: event.event, intoDistinctId: event.distinctId, otherDistinctId: stringify(properties.alias) };
  }
  if (event.event === '$identify' && Object.hasOwn(properties, '$anon_distinct_id')) {
    return { kind: '$identify', intoDistinctId: event.distinctId, otherDistinctId: stringify(properties.$anon_distinct_id) };
  }
  return undefined;
}

/** What the merge logic needs to know about a stored person. */
export interface PersonSnapshot {
  id: string;
  isIdentified: boolean;
}

export type MergeDecision =
  /** Same id on both sides: nothing to do, the person is not marked identified either. */
  | { action: 'noop'; markIdentified: false; warnings: [] }
  /** An illegal id: no merge; process the event on the into id as a normal event. */
  | { action: 'skip_illegal'; markIdentified: false; warnings: IngestionWarning[] }
  /** Neither id has a person: create one with both ids (event `$set`/`$set_once`), identified. */
  | { action: 'create'; distinctIds: [string, string]; markIdentified: true; warnings: [] }
  /** One id has a person: add the other id to it; that person is marked identified. */
  | { action: 'add_distinct_id'; personId: string; distinctId: string; markIdentified: true; warnings: [] }
  /** Both ids already belong to the same person: just mark it identified. */
  | { action: 'already_merged'; personId: string; markIdentified: true; warnings: [] }
  /** The other person is identified and this is not `$merge_dangerously`: keep both persons. */
  | { action: 'refuse'; personId: string; markIdentified: true; warnings: IngestionWarning[] }
  /** Fold `sourcePersonId` into `targetPersonId` (see `mergePersons`), then delete the source. */
  | { action: 'merge'; targetPersonId: string; sourcePersonId: string; markIdentified: true; warnings: [] };

export interface MergeContext {
  request: MergeRequest;
  /** Person currently owning `request.intoDistinctId`, if any. */
  intoPerson: PersonSnapshot | undefined;
  /** Person currently owning `request.otherDistinctId`, if any. */
  otherPerson: PersonSnapshot | undefined;
  /** For warning details. */
  eventUuid?: string | undefined;
}

export function decideMerge(context: MergeContext): MergeDecision {
  const { request, intoPerson, otherPerson } = context;
  const { intoDistinctId, otherDistinctId } = request;
  if (intoDistinctId === otherDistinctId) return { action: 'noop', markIdentified: false, warnings: [] };

  // The into id is checked first, as in PostHog, so the warning names the id that blocked it.
  const illegal = isDistinctIdIllegal(intoDistinctId) ? intoDistinctId : isDistinctIdIllegal(otherDistinctId) ? otherDistinctId : undefined;
  if (illegal !== undefined) {
    const otherId = illegal === intoDistinctId ? otherDistinctId : intoDistinctId;
    return {
      action: 'skip_illegal',
      markIdentified: false,
      warnings: [
        {
          type: 'cannot_merge_with_illegal_distinct_id',
          details: { illegalDistinctId: illegal, otherDistinctId: otherId, eventUuid: context.eventUuid ?? null },
        },
      ],
    };
  }

  if (!intoPerson && !otherPerson) {
    return { action: 'create', distinctIds: [intoDistinctId, otherDistinctId], markIdentified: true, warnings: [] };
  }
  if (!intoPerson || !otherPerson) {
    const existing = (intoPerson ?? otherPerson)!;
    const distinctId = intoPerson ? otherDistinctId : intoDistinctId;
    return { action: 'add_distinct_id', personId: existing.id, distinctId, markIdentified: true, warnings: [] };
  }
  if (intoPerson.id === otherPerson.id) {
    return { action: 'already_merged', personId: intoPerson.id, markIdentified: true, warnings: [] };
  }
  if (!isMergeAllowed(request.kind, otherPerson)) {
    return {
      action: 'refuse',
      personId: intoPerson.id,
      markIdentified: true,
      warnings: [
        {
          type: 'cannot_merge_already_identified',
          details: {
            sourcePersonDistinctId: otherDistinctId,
            targetPersonDistinctId: intoDistinctId,
            eventUuid: context.eventUuid ?? null,
          },
        },
      ],
    };
  }
  return { action: 'merge', targetPersonId: intoPerson.id, sourcePersonId: otherPerson.id, markIdentified: true, warnings: [] };
}

/**
 * `$identify` and `$create_alias` never fold an already identified person into another one (that
 * would merge two real users after a shared-device login); `$merge_dangerously` is the explicit
 * override.
 */
export function isMergeAllowed(kind: MergeKind, source: PersonSnapshot): boolean {
  return kind === '$merge_dangerously' || !source.isIdentified;
}

/** A person as the merge arithmetic needs it. */
export interface MergeablePerson {
  properties: Properties;
  createdAt: Date;
  version: number;
}

export interface MergedPersonFields {
  /** Target wins on key conflicts; apply the event's own update afterwards. */
  properties: Properties;
  /** The earliest of the two: the first time either id was seen. */
  createdAt: Date;
  /**
   * Above both versions, so that if the source person is later re-created (split), its new row
   * outranks every row of the deleted one.
   */
  version: number;
  isIdentified: true;
}

/** The surviving person's fields after folding `source` into `target` (PostHog `mergePeople`). */
export function mergePersons(target: MergeablePerson, source: MergeablePerson): MergedPersonFields {
  return {
    properties: mergePersonProperties(target.properties, source.properties),
    createdAt: new Date(Math.min(target.createdAt.getTime(), source.createdAt.getTime())),
    version: Math.max(target.version, source.version) + 1,
    isIdentified: true,
  };
}

/** `{...source, ...target}`: the event's distinct_id person keeps its values on conflicts. */
export function mergePersonProperties(target: Properties, source: Properties): Properties {
  return { ...source, ...target };
}

/**
 * PostHog calls `String()`: null becomes "null" and objects "[object Object]", both illegal ids.
 * NUL and lone surrogates become U+FFFD, as in the event's own distinct id (`extractDistinctId`):
 * the id is stored and looked up in person_distinct_ids.
 */
function stringify(value: unknown): string {
  return wellFormedText(String(value));
}
