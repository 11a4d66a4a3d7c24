import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../../db/schema.js';
import { uuidv7 } from '../../lib/uuid.js';
import {
  addDistinctId,
  deletePersonRow,
  getPersonByDistinctId,
  insertPerson,
  moveDistinctIds,
  updatePerson,
  type Person,
} from '../../persons/store.js';
import {
  applyPersonPropertyUpdate,
  decideMerge,
  detectMergeRequest,
  extractPersonPropertyUpdate,
  mergePersons,
  propertiesForNewPerson,
  type IngestionWarning,
  type Properties,
} from '../core/index.js';

type Db = Kysely<Schema>;

export interface PersonEvent {
  teamId: number;
  uuid: string;
  event: string;
  distinctId: string;
  /** Normalised properties: `$set`/`$set_once`/`$unset` folded in. */
  properties: Properties;
  timestamp: string;
}

export interface PersonOutcome {
  /** The person's uuid the event is attributed to. */
  personUuid: string;
  warnings: IngestionWarning[];
}

/**
 * A stable person id for events of a distinct id that has no person profile, as PostHog derives
 * one (name-based, from team and distinct id), so personless events of one id still group.
 */
export function personlessPersonUuid(teamId: number, distinctId: string): string {
  const hex = createHash('sha1').update(`${teamId}:${distinctId}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function markIdentified(db: Db, person: Person): Promise<Person> {
  if (person.isIdentified) return person;
  const updated = { ...person, isIdentified: true, version: person.version + 1 };
  await updatePerson(db, updated);
  return updated;
}

async function createPerson(db: Db, event: PersonEvent, properties: Properties, identified: boolean, ids: string[]) {
  return insertPerson(
    db,
    { uuid: uuidv7(Date.parse(event.timestamp) || Date.now()), teamId: event.teamId, properties, isIdentified: identified, createdAt: event.timestamp },
    ids,
  );
}

/**
 * Identify, alias and merge handling (`$identify` with `$anon_distinct_id`, `$create_alias`,
 * `$merge_dangerously`), following PostHog's merge rules in core/merge-rules.ts. Returns the
 * person now owning the event's distinct id, if the merge step created or chose one.
 */
async function handleMerge(db: Db, event: PersonEvent, warnings: IngestionWarning[]): Promise<Person | undefined> {
  const request = detectMergeRequest({ event: event.event, distinctId: event.distinctId, properties: event.properties });
  if (!request) return undefined;
  const into = await getPersonByDistinctId(db, event.teamId, request.intoDistinctId);
  const other = await getPersonByDistinctId(db, event.teamId, request.otherDistinctId);
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
    case 'create': {
      const update = extractPersonPropertyUpdate({ event: event.event, properties: event.properties });
      return createPerson(db, event, propertiesForNewPerson(update), true, decision.distinctIds);
    }
    case 'add_distinct_id': {
      const owner = (into ?? other)!;
      await addDistinctId(db, event.teamId, decision.distinctId, owner.id);
      return markIdentified(db, owner);
    }
    case 'already_merged':
    case 'refuse':
      return into ? markIdentified(db, into) : undefined;
    case 'merge': {
      const target = [into, other].find((p) => String(p?.id) === decision.targetPersonId)!;
      const source = [into, other].find((p) => String(p?.id) === decision.sourcePersonId)!;
      const merged = mergePersons(
        { properties: target.properties, createdAt: new Date(target.createdAt), version: target.version },
        { properties: source.properties, createdAt: new Date(source.createdAt), version: source.version },
      );
      const updated: Person = {
        ...target,
        properties: merged.properties,
        createdAt: merged.createdAt.toISOString(),
        version: merged.version,
        isIdentified: true,
      };
      await moveDistinctIds(db, source.id, target.id);
      await deletePersonRow(db, event.teamId, source.id);
      await updatePerson(db, updated);
      return updated;
    }
  }
}

/**
 * Everything an event does to persons: merges first, then the property update on the person
 * owning the event's distinct id (created on first sight).
 */
export async function processPerson(db: Db, event: PersonEvent): Promise<PersonOutcome> {
  const warnings: IngestionWarning[] = [];
  let person = await handleMerge(db, event, warnings);
  if (!person || !(await ownsDistinctId(db, event, person))) {
    person = await getPersonByDistinctId(db, event.teamId, event.distinctId);
  }
  const update = extractPersonPropertyUpdate({ event: event.event, properties: event.properties });
  if (!person) {
    person = await createPerson(db, event, propertiesForNewPerson(update), false, [event.distinctId]);
    return { personUuid: person.uuid, warnings };
  }
  const applied = applyPersonPropertyUpdate(person.properties, update, event.event);
  if (applied.changed && applied.shouldPersist) {
    await updatePerson(db, { ...person, properties: applied.properties, version: person.version + 1 });
  }
  return { personUuid: person.uuid, warnings };
}

async function ownsDistinctId(db: Db, event: PersonEvent, person: Person): Promise<boolean> {
  const owner = await getPersonByDistinctId(db, event.teamId, event.distinctId);
  return owner?.id === person.id;
}
