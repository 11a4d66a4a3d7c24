import { drfDateTime } from '../posthog/python-datetime.js';
import { pyTruthy } from '../posthog/python-values.js';
import type { Team } from '../environments/models.js';
import type { Person } from './store.js';

/** PostHog's PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES (posthog/api/person.py). */
const DEFAULT_DISPLAY_PROPERTIES = ['email', 'name', 'username'];

/**
 * PostHog's ANONYMOUS_REGEX (posthog/utils.py), applied with `re.match`: five dash-separated runs
 * of lowercase letters and digits, as posthog-js's generated ids look. Python's `$` also matches
 * before a final newline, hence the optional `\n`.
 */
const ANONYMOUS_ID = /^([a-z0-9]+-){4}[a-z0-9]+\n?$/;

export function isAnonymousId(distinctId: string): boolean {
  return ANONYMOUS_ID.test(distinctId);
}

/**
 * `sorted(distinct_ids, key=is_anonymous_id)`: the identified ids first, each group in stored
 * order (the sort is stable), so `distinct_ids[0]` is the id the user was identified with.
 */
export function orderDistinctIds(distinctIds: readonly string[]): string[] {
  return [...distinctIds].sort((a, b) => Number(isAnonymousId(a)) - Number(isAnonymousId(b)));
}

/**
 * PostHog's `get_person_name_helper`: the first truthy display property (the environment's list,
 * or email, name, username), returned as stored (a number stays a number); else the first
 * distinct id once identified ones are put first; else the person's key, which is the uuid in the
 * list (`get_serialized_people` passes it as the id) and the numeric id on retrieve.
 */
export function personDisplayName(team: Team, person: Person, distinctIds: readonly string[], fallback: string): unknown {
  const configured = team.settings.person_display_name_properties;
  const keys = Array.isArray(configured) && configured.length > 0 ? configured : DEFAULT_DISPLAY_PROPERTIES;
  for (const key of keys) {
    if (typeof key !== 'string') continue;
    const value = Object.hasOwn(person.properties, key) ? person.properties[key] : undefined;
    // PostHog tests `person_properties.get(key)` with `if`.
    if (pyTruthy(value)) return value;
  }
  return orderDistinctIds(distinctIds)[0] ?? fallback;
}

/** Where a person is shown: the fallback display name and how many distinct ids differ. */
export type PersonView = 'list' | 'retrieve';

/**
 * The persons list shows at most this many distinct ids of a person (`get_serialized_people`'s
 * `distinct_id_limit`), the identified ones first; retrieve shows them all, as PostHog's
 * PersonSerializer does. A person merged from many anonymous visits can have tens of thousands.
 */
export const LIST_DISTINCT_IDS_LIMIT = 1000;

export function serializePerson(team: Team, person: Person, distinctIds: readonly string[], view: PersonView = 'retrieve') {
  const ordered = orderDistinctIds(distinctIds);
  return {
    id: person.id,
    name: personDisplayName(team, person, ordered, view === 'list' ? person.uuid : String(person.id)),
    distinct_ids: view === 'list' ? ordered.slice(0, LIST_DISTINCT_IDS_LIMIT) : ordered,
    properties: person.properties,
    // DRF's DateTimeField (retrieve) and the renderer's datetime (list) print the same text.
    created_at: drfDateTime(person.createdAt),
    uuid: person.uuid,
    is_identified: person.isIdentified,
  };
}

/** How many distinct ids PostHog's MinimalPersonSerializer shows (`distinct_ids[:10]`). */
export const MINIMAL_DISTINCT_IDS_LIMIT = 10;

/**
 * PostHog's MinimalPersonSerializer (batch lookups): the person's first ten distinct ids as stored,
 * then identified ones first; named from those as PostHog's `get_person_name` does.
 */
export function serializeMinimalPerson(team: Team, person: Person, distinctIds: readonly string[]) {
  const shown = orderDistinctIds(distinctIds.slice(0, MINIMAL_DISTINCT_IDS_LIMIT));
  return {
    id: person.id,
    name: personDisplayName(team, person, shown, String(person.id)),
    distinct_ids: shown,
    properties: person.properties,
    created_at: drfDateTime(person.createdAt),
    uuid: person.uuid,
  };
}
