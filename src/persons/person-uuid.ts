/**
 * Person uuids as PostHog derives them from a distinct id (`uuidFromDistinctId`): a UUIDv5 of
 * `"<team id>:<distinct id>"` in PostHog's own namespace. PostHog attributes personless events to
 * it, and names the persons its split makes with it; so does Hoglet, to the last bit. (PostHog
 * also names new persons with it; Hoglet does not: see createPerson in
 * ingestion/worker/person-processor.ts.)
 */
import { uuidv5 } from '../lib/uuid.js';

/** The namespace PostHog chose for person uuids (a fixed UUIDv4). */
const PERSON_UUID_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';

/** The uuid of the person PostHog creates for a distinct id, or attributes its personless events to. */
export function personUuidFromDistinctId(teamId: number, distinctId: string): string {
  return uuidv5(PERSON_UUID_NAMESPACE, `${teamId}:${distinctId}`);
}

/**
 * The uuid of the person a split gives a distinct id: the distinct id's own, unless the person
 * being split already has it (it was created for that id), then one named `"<team>:<id>:split"`,
 * as PostHog's split does, so the two never share a uuid.
 */
export function splitPersonUuid(teamId: number, distinctId: string, sourceUuid: string): string {
  const uuid = personUuidFromDistinctId(teamId, distinctId);
  return uuid === sourceUuid ? uuidv5(PERSON_UUID_NAMESPACE, `${teamId}:${distinctId}:split`) : uuid;
}
