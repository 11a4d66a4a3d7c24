import { uuidv7 } from '../../lib/uuid.js';
import {
  computePersonPropertyChanges,
  decideMerge,
  mergePersons,
  propertiesForNewPerson,
  type IngestionWarning,
  type MergeRequest,
  type PersonPropertyUpdate,
  withPersonPropertyChanges,
  type Properties,
} from '../core/index.js';
import type { PersonState, PersonUnitOfWork } from './person-unit.js';

export interface PersonEvent {
  teamId: number;
  uuid: string;
  event: string;
  distinctId: string;
  /** The event's `$set` / `$set_once` / `$unset`, top-level ones and lifted properties folded in. */
  update: PersonPropertyUpdate;
  /** The merge the event asks for (`$identify` with `$anon_distinct_id`, `$create_alias`, …). */
  merge: MergeRequest | undefined;
  timestamp: string;
}

export interface PersonOutcome {
  /** The person's uuid the event is attributed to. */
  personUuid: string;
  warnings: IngestionWarning[];
}

function markIdentified(persons: PersonUnitOfWork, person: PersonState): PersonState {
  if (!person.isIdentified) persons.update(person, { isIdentified: true, version: person.version + 1 });
  return person;
}

/**
 * A new person. PostHog names it after its first distinct id (uuidFromDistinctId); Hoglet gives it
 * a fresh time-ordered uuid instead, so that no living person ever has the uuid that a deleted
 * person's events, or an id's personless events, carry: a person's events are deleted by that
 * (deletions/store.ts), and reads find an event's person by its distinct id either way.
 */
function createPerson(persons: PersonUnitOfWork, event: PersonEvent, properties: Properties, identified: boolean, ids: string[]) {
  return persons.create(
    {
      uuid: uuidv7(Date.parse(event.timestamp) || Date.now()),
      teamId: event.teamId,
      properties,
      isIdentified: identified,
      createdAt: event.timestamp,
    },
    ids,
  );
}

/**
 * Identify, alias and merge handling (`$identify` with `$anon_distinct_id`, `$create_alias`,
 * `$merge_dangerously`), following PostHog's merge rules in core/merge-rules.ts. Returns the
 * person the merge step created or chose, if any.
 */
function handleMerge(
  persons: PersonUnitOfWork,
  event: PersonEvent,
  request: MergeRequest,
  warnings: IngestionWarning[],
): PersonState | undefined {
  const into = persons.loaded(event.teamId, request.intoDistinctId) ?? undefined;
  const other = persons.loaded(event.teamId, request.otherDistinctId) ?? undefined;
  const decision = decideMerge({
    request,
    intoPerson: into && { id: String(into.id), isIdentified: into.isIdentified },
    otherPerson: other && { id: String(other.id), isIdentified: other.isIdentified },
    eventUuid: event.uuid,
  });
  warnings.push(...decision.warnings);
  switch (decision.action) {
    case 'noop':
    case 'skip_illegal':
      return undefined;
    case 'create':
      return createPerson(persons, event, propertiesForNewPerson(event.update, event.uuid), true, decision.distinctIds);
    case 'add_distinct_id': {
      const owner = (into ?? other)!;
      persons.addDistinctId(event.teamId, decision.distinctId, owner);
      return markIdentified(persons, owner);
    }
    case 'already_merged':
    case 'refuse':
      return into ? markIdentified(persons, into) : undefined;
    case 'merge': {
      const target = [into, other].find((p) => String(p?.id) === decision.targetPersonId)!;
      const source = [into, other].find((p) => String(p?.id) === decision.sourcePersonId)!;
      const merged = mergePersons(
        { properties: target.properties, createdAt: new Date(target.createdAt), version: target.version },
        { properties: source.properties, createdAt: new Date(source.createdAt), version: source.version },
      );
      persons.merge(source, target);
      persons.update(target, {
        properties: merged.properties,
        createdAt: merged.createdAt.toISOString(),
        version: merged.version,
        isIdentified: true,
      });
      return target;
    }
  }
}

/**
 * Everything an event does to persons: merges first, then the property update on the person
 * owning the event's distinct id (created on first sight). Changes go to the batch's unit of work.
 * Synchronous when the batch has loaded every distinct id the event names (its preload loads
 * almost all of them); otherwise they are loaded first and a promise is returned.
 */
export function processPerson(persons: PersonUnitOfWork, event: PersonEvent): PersonOutcome | Promise<PersonOutcome> {
  const request = event.merge;
  const ids = request ? [request.intoDistinctId, request.otherDistinctId, event.distinctId] : [event.distinctId];
  if (ids.every((id) => persons.loaded(event.teamId, id) !== undefined)) return processLoaded(persons, event, request);
  return persons.preload(event.teamId, ids).then(() => processLoaded(persons, event, request));
}

/** processPerson once every distinct id the event names is loaded. */
function processLoaded(persons: PersonUnitOfWork, event: PersonEvent, request: MergeRequest | undefined): PersonOutcome {
  const warnings: IngestionWarning[] = [];
  if (request) handleMerge(persons, event, request, warnings);
  // Whatever the merge did, the event belongs to the person owning its distinct id now.
  let person = persons.loaded(event.teamId, event.distinctId) ?? undefined;
  const update = event.update;
  if (!person) {
    person = createPerson(persons, event, propertiesForNewPerson(update, event.uuid), false, [event.distinctId]);
    return { personUuid: person.uuid, warnings };
  }
  const changes = computePersonPropertyChanges(person.properties, update, event.event);
  // A change PostHog would not write is not applied in memory either: later events of the batch
  // must see what they would have read back from the database. (So the new properties are only
  // built for changes that are written: most page views change volatile keys only.)
  if (changes.shouldPersist) {
    persons.update(person, { properties: withPersonPropertyChanges(person.properties, changes), version: person.version + 1 });
  }
  return { personUuid: person.uuid, warnings };
}
