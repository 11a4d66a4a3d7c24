/**
 * Deleting persons, as PostHog's PersonViewSet does for `DELETE …/persons/:id/` and
 * `POST …/persons/bulk_delete/` (both go through its `_bulk_delete_persons`): the person rows go
 * at once, and on request their events (`delete_events`) and their session recordings
 * (`delete_recordings`) follow in the background (src/deletions/), found by the distinct ids the
 * persons have now. `keep_person` keeps the rows and deletes only what was asked for.
 */
import type { Kysely } from 'kysely';
import { recordActivity, type Actor } from '../activity/store.js';
import type { Schema } from '../platform/db/schema.js';
import { notePersonEventDeletion, type DeletionStatusFilter, type PersonEventDeletionRow } from '../deletions/person-event-status-store.js';
import { queueDeletion } from '../deletions/store.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';
import { validationError } from '../posthog/errors.js';
import { drfDateTime } from '../posthog/python-datetime.js';
import { pyTruthy, queryParam } from '../posthog/python-values.js';
import { canonicalUuid } from '../lib/uuid.js';
import type { Team } from '../environments/models.js';
import { PERSON_ACTIVITY_SCOPE } from './actions.js';
import { getPersonsByDistinctIds } from './batch-store.js';
import { deletePersonRow, distinctIdsOf, getPersonsByUuids, type Person } from './store.js';

type Db = Kysely<Schema>;

export interface PersonDeletion {
  deleteEvents: boolean;
  deleteRecordings: boolean;
  keepPerson: boolean;
}

/**
 * Deletes the persons (unless `keepPerson`) and queues the deletion of their events and
 * recordings, all in one transaction, so what is queued is exactly what the persons had when their
 * rows went. Each deleted person gets a `deleted` entry in its history (PostHog's
 * `_tombstone_and_delete_persons`: scope `Person`, the uuid as the entry's name, no changes), in
 * the same transaction, so there is no deletion without its entry. Returns how many person rows
 * were deleted.
 */
export async function deletePersons(
  db: Db,
  team: Team,
  actor: Actor,
  persons: readonly Person[],
  deletion: PersonDeletion,
): Promise<number> {
  if (persons.length === 0) return 0;
  const teamId = team.id;
  return db.transaction().execute(async (trx) => {
    const queuesAny = deletion.deleteEvents || deletion.deleteRecordings;
    const distinctIds = queuesAny
      ? await distinctIdsOf(
          trx,
          persons.map((p) => p.id),
        )
      : new Map<number, string[]>();
    for (const person of persons) {
      const ids = distinctIds.get(person.id) ?? [];
      if (deletion.deleteEvents) {
        const deletionId = await queueDeletion(trx, { teamId, kind: 'person_events', target: person.uuid, distinctIds: ids });
        await notePersonEventDeletion(trx, teamId, person.uuid, deletionId);
      }
      if (deletion.deleteRecordings) await queueDeletion(trx, { teamId, kind: 'person_recordings', target: person.uuid, distinctIds: ids });
      if (deletion.keepPerson) continue;
      await deletePersonRow(trx, teamId, person.id);
      await recordActivity(trx, {
        organizationId: team.organizationId,
        teamId,
        scope: PERSON_ACTIVITY_SCOPE,
        itemId: person.id,
        activity: 'deleted',
        actor,
        name: person.uuid,
      });
    }
    return deletion.keepPerson ? 0 : persons.length;
  });
}

/** PostHog's cap on `ids` and `distinct_ids` per bulk delete call. */
export const MAX_BULK_DELETE_IDS = 1000;

/** What a bulk delete names: persons by uuid, or the persons behind distinct ids. */
export type BulkDeleteTarget = { uuids: string[] } | { distinctIds: string[] };

function readIdList(value: unknown, attr: string): string[] {
  if (!Array.isArray(value)) throw validationError(DRF_MESSAGES.notAList(value), attr, 'not_a_list');
  if (!value.every((v): v is string => typeof v === 'string')) throw validationError('Every item must be a string.', attr);
  return value;
}

/**
 * The bulk delete body as `_bulk_delete_persons` reads it: `distinct_ids` or `ids` (person uuids),
 * not both, at most 1000; the flags by Python truthiness (`bool(request.data.get(…))`). A list of
 * anything but strings is refused (PostHog fails on it with a server error).
 */
export function readBulkDeleteBody(body: unknown): { target: BulkDeleteTarget; deletion: PersonDeletion } {
  const data = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const hasDistinctIds = pyTruthy(data.distinct_ids);
  const hasIds = pyTruthy(data.ids);
  if (hasDistinctIds && hasIds) throw validationError('You must provide either distinct_ids or ids, not both');
  if (!hasDistinctIds && !hasIds) throw validationError('You need to specify either distinct_ids or ids');
  const attr = hasDistinctIds ? 'distinct_ids' : 'ids';
  const list = readIdList(data[attr], attr);
  if (list.length > MAX_BULK_DELETE_IDS) throw validationError(`You can only pass ${MAX_BULK_DELETE_IDS} ${attr} in one call`);
  return {
    target: hasDistinctIds ? { distinctIds: list } : { uuids: list },
    deletion: {
      deleteEvents: pyTruthy(data.delete_events),
      deleteRecordings: pyTruthy(data.delete_recordings),
      keepPerson: pyTruthy(data.keep_person),
    },
  };
}

/** The team's persons a bulk delete names, each once; ids that name no one are passed over. */
export async function resolveBulkDeleteTarget(db: Db, teamId: number, target: BulkDeleteTarget): Promise<Person[]> {
  if ('distinctIds' in target) {
    const byDistinctId = await getPersonsByDistinctIds(db, teamId, [...new Set(target.distinctIds)]);
    return [...new Map([...byDistinctId.values()].map((p) => [p.id, p])).values()];
  }
  const uuids = [...new Set(target.uuids.map(canonicalUuid).filter((uuid): uuid is string => uuid !== null))];
  return [...(await getPersonsByUuids(db, teamId, uuids)).values()];
}

const DELETION_STATUSES: readonly DeletionStatusFilter[] = ['pending', 'completed', 'all'];

/** PostHog's DeletionStatusQueryParamsSerializer: `status` (default `all`) and `person_uuid`, with DRF's messages. */
export function readDeletionStatusParams(query: unknown): { status: DeletionStatusFilter; personUuid: string | undefined } {
  const status = queryParam(query, 'status') ?? 'all';
  if (!DELETION_STATUSES.includes(status as DeletionStatusFilter))
    throw validationError(`"${status}" is not a valid choice.`, 'status', 'invalid_choice');
  const uuidText = queryParam(query, 'person_uuid');
  const personUuid = uuidText === undefined ? undefined : canonicalUuid(uuidText);
  if (personUuid === null) throw validationError('Must be a valid UUID.', 'person_uuid');
  return { status: status as DeletionStatusFilter, personUuid };
}

/** PostHog's AsyncDeletionStatusSerializer. */
export function serializeDeletionStatus(row: PersonEventDeletionRow) {
  return {
    person_uuid: row.person_uuid,
    created_at: drfDateTime(row.created_at),
    status: row.verified_at === null ? 'pending' : 'completed',
    delete_verified_at: row.verified_at === null ? null : drfDateTime(row.verified_at),
  };
}
