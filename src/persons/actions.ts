/**
 * The persons API's writes besides deletion (PostHog's PersonViewSet `update` for PATCH and PUT,
 * `update_property`, `delete_property` and `split`, posthog/api/person.py).
 *
 * Setting or removing a property goes through ingestion, as in PostHog: the action queues a `$set`
 * or `$delete_person_property` event for the person's first distinct id, and the worker applies it
 * in order with the person's other events (so the answer comes before the change, 202 or 201).
 * A split is done at once, in one transaction (PostHog runs it as a background task).
 */
import type { Kysely } from 'kysely';
import { recordActivity, type ActivityChange } from '../activity/store.js';
import type { Principal } from '../auth/guard.js';
import type { AppContext } from '../context.js';
import { actorOf } from '../environments/service.js';
import { ApiError, notFound, validationError } from '../posthog/errors.js';

import type { QueueRow } from '../ingestion/queue.js';
import { pythonRepr } from '../posthog/python-text.js';
import { pyTruthy } from '../posthog/python-values.js';
import { uuidv7 } from '../lib/uuid.js';
import type { Schema } from '../platform/db/schema.js';
import type { Team } from '../environments/models.js';
import { splitPersonUuid } from './person-uuid.js';
import { resetPersonOverrides } from './overrides-store.js';
import { addToOutbox } from '../events/outbox-rows.js';
import { insertPersons } from './batch-store.js';
import {
  distinctIdsOf,
  firstDistinctIdOf,
  lockPerson,
  moveDistinctIds,
  notePersonsChangedOutsideWorker,
  personIdsByUuid,
  type Person,
} from './store.js';
import { isJsonObject } from '../lib/json-object.js';

type Db = Kysely<Schema>;

/** The scope PostHog logs person activity under. */
export const PERSON_ACTIVITY_SCOPE = 'Person';

/**
 * PostHog's own answer to a missing field of `update` and `update_property`: its view raises
 * `ValidationError({"value": "required"}, code="This field is required.")`, which the envelope
 * prints with code and detail the other way round from every other error. Scripts may match it.
 */
const requiredByPersonView = (attr: string) => new ApiError(400, 'validation_error', 'This field is required.', 'required', attr);

function bodyObject(body: unknown): Record<string, unknown> {
  return isJsonObject(body) ? body : {};
}

/** A person's event through ingestion, as PostHog's `capture_internal` sends it: no library, no address. */
async function capturePersonEvent(
  ctx: AppContext,
  team: Team,
  distinctId: string,
  event: string,
  properties: Record<string, unknown>,
): Promise<void> {
  const now = new Date().toISOString();
  const row: QueueRow = {
    teamId: team.id,
    lane: 'realtime',
    distinctId,
    payload: { uuid: uuidv7(), event, distinct_id: distinctId, properties, timestamp: now, now, sent_at: null, ip: null },
  };
  await ctx.ingestionQueue.enqueue([row]);
}

/** An entry of the person's history, in the transaction `db` when there is one. */
async function logPersonActivity(
  db: Db,
  principal: Principal,
  team: Team,
  person: Person,
  activity: string,
  changes: ActivityChange[],
  name: string | null,
): Promise<void> {
  await recordActivity(db, {
    organizationId: team.organizationId,
    teamId: team.id,
    scope: PERSON_ACTIVITY_SCOPE,
    itemId: person.id,
    activity,
    actor: actorOf(principal),
    name,
    changes,
  });
}

/** `update_property`'s body checked before the person is looked up, as PostHog does: `{key, value}`. */
export function readUpdatePropertyBody(body: unknown): { key: unknown; value: unknown } {
  const fields = bodyObject(body);
  if (!Object.hasOwn(fields, 'value')) throw requiredByPersonView('value');
  if (fields.key === undefined || fields.key === null) throw requiredByPersonView('key');
  // PostHog takes any key it can make a JSON object key of (`5` becomes "5"); an object or a list
  // it cannot (a 500 there).
  if (typeof fields.key === 'object') throw validationError('A property key must be a string.', 'key');
  return { key: fields.key, value: fields.value };
}

/** Sets one property through a `$set` event (null is a value too); answered 202 with no body. */
export function updatePersonProperty(
  ctx: AppContext,
  principal: Principal,
  team: Team,
  person: Person,
  update: { key: unknown; value: unknown },
): Promise<void> {
  return setPersonProperties(ctx, principal, team, person, { [String(update.key)]: update.value });
}

/**
 * The body of PATCH or PUT on a person (PostHog's update, for both): `properties`, an object, set
 * over the person's (merged, never replacing: `delete_property` removes one). Nothing else is read.
 */
export function readPersonUpdateBody(body: unknown): Record<string, unknown> {
  const properties = bodyObject(body).properties;
  if (properties === undefined || properties === null) throw requiredByPersonView('properties');
  // PostHog fails on anything but an object with a 500; here it is said.
  if (!isJsonObject(properties)) throw validationError('Expected a dictionary of properties.', 'properties');
  return properties;
}

/** Sets properties through one `$set` event of the person's first distinct id, and logs it. */
export async function setPersonProperties(
  ctx: AppContext,
  principal: Principal,
  team: Team,
  person: Person,
  properties: Record<string, unknown>,
): Promise<void> {
  const distinctId = await firstDistinctIdOf(ctx.database.db, person.id);
  // PostHog's capture failures (here: a person without distinct ids) leave the answer as it is.
  if (distinctId !== undefined) await capturePersonEvent(ctx, team, distinctId, '$set', { $set: properties });
  await logPersonActivity(
    ctx.database.db,
    principal,
    team,
    person,
    'updated',
    [{ type: 'Person', action: 'changed', field: 'properties', before: null, after: null }],
    null,
  );
}

/**
 * `delete_property`'s body: `{"$unset": key}`. PostHog fails with a 500 when it is missing (a
 * KeyError); Hoglet says what is missing.
 */
export function readDeletePropertyBody(body: unknown): { key: unknown } {
  const fields = bodyObject(body);
  if (!Object.hasOwn(fields, '$unset')) throw validationError('This field is required.', '$unset', 'required');
  return { key: fields.$unset };
}

/** Removes one property through a `$delete_person_property` event carrying `$unset: [key]`. */
export async function deletePersonProperty(
  ctx: AppContext,
  principal: Principal,
  team: Team,
  person: Person,
  request: { key: unknown },
): Promise<void> {
  const distinctId = await firstDistinctIdOf(ctx.database.db, person.id);
  if (distinctId === undefined) throw validationError('Unable to delete property');
  await capturePersonEvent(ctx, team, distinctId, '$delete_person_property', { $unset: [request.key] });
  await logPersonActivity(
    ctx.database.db,
    principal,
    team,
    person,
    'delete_property',
    [{ type: 'Person', action: 'changed', field: null, before: null, after: null }],
    person.uuid,
  );
}

export interface SplitRequest {
  /** The id the person keeps (a falsy one, as absent: its first); one it does not have keeps none. */
  mainDistinctId: unknown;
  /** Only these ids leave the person, as sent (duplicates are moved once). */
  distinctIdsToSplit: string[] | undefined;
}

/** `split`'s body in itself; which ids it names is checked against the person's in splitPerson. */
export function readSplitBody(body: unknown): SplitRequest {
  const fields = bodyObject(body);
  // PostHog's `if not main_distinct_id`: "", 0, false and {} name no main id.
  const mainDistinctId = pyTruthy(fields.main_distinct_id) ? fields.main_distinct_id : undefined;
  const toSplit = fields.distinct_ids_to_split;
  if (toSplit === undefined || toSplit === null) return { mainDistinctId, distinctIdsToSplit: undefined };
  if (!Array.isArray(toSplit) || !toSplit.every((id): id is string => typeof id === 'string')) {
    throw validationError('must be a list of strings', 'distinct_ids_to_split');
  }
  if (toSplit.length === 0) throw validationError('must not be empty', 'distinct_ids_to_split');
  if (fields.main_distinct_id !== undefined && fields.main_distinct_id !== null) {
    throw validationError('main_distinct_id cannot be combined with distinct_ids_to_split');
  }
  return { mainDistinctId: undefined, distinctIdsToSplit: toSplit };
}

/** Which of the person's ids leave it: the ones asked for, else all but the main one (the first when none is named). */
export function distinctIdsLeaving(personDistinctIds: readonly string[], request: SplitRequest): string[] {
  if (request.distinctIdsToSplit) {
    const owned = new Set(personDistinctIds);
    const foreign = [...new Set(request.distinctIdsToSplit.filter((id) => !owned.has(id)))].sort();
    if (foreign.length > 0) throw validationError(`not on this person: ${pythonRepr(foreign)}`, 'distinct_ids_to_split');
    return [...new Set(request.distinctIdsToSplit)];
  }
  const kept = request.mainDistinctId === undefined ? personDistinctIds[0] : request.mainDistinctId;
  return personDistinctIds.filter((id) => id !== kept);
}

/**
 * Gives each leaving id a person of its own, named as PostHog names it (splitPersonUuid): the
 * person of that uuid when there is one already (an earlier split made it), else a new one with
 * no properties. The person keeps its properties and the rest of its ids. All in one transaction
 * with the person locked, its ids read there: a merge or deletion by the worker meanwhile either
 * comes before (the split sees its result; a deleted person is a 404) or waits. The ingestion
 * worker is told when ids moved, so it drops the persons it keeps. Writes go 500 rows a statement:
 * a person with tens of thousands of ids splits in a few statements, not two per id.
 */
export async function splitPerson(
  ctx: AppContext,
  principal: Principal,
  team: Team,
  personId: number,
  request: SplitRequest,
): Promise<void> {
  const { dialect } = ctx.database;
  await ctx.database.db.transaction().execute(async (trx) => {
    const person = await lockPerson(trx, dialect, team.id, personId);
    if (!person) throw notFound();
    const personDistinctIds = (await distinctIdsOf(trx, [person.id])).get(person.id) ?? [];
    const leaving = distinctIdsLeaving(personDistinctIds, request);
    if (leaving.length > 0) {
      const uuids = leaving.map((distinctId) => splitPersonUuid(team.id, distinctId, person.uuid));
      const existing = await personIdsByUuid(trx, team.id, uuids);
      const createdAt = new Date().toISOString();
      const fresh = [...new Set(uuids.filter((uuid) => !existing.has(uuid)))];
      const created = await insertPersons(
        trx,
        fresh.map((uuid) => ({ uuid, teamId: team.id, properties: {}, isIdentified: false, createdAt, version: 0 })),
      );
      const idOf = (uuid: string) => existing.get(uuid) ?? created.get(uuid)!;
      await moveDistinctIds(
        trx,
        team.id,
        person.id,
        leaving.map((distinctId, i) => ({ distinctId, toPersonId: idOf(uuids[i]!) })),
      );
      // The split persons' own events count for them, not for the person their uuid was overridden to.
      await addToOutbox(trx, '', await resetPersonOverrides(trx, team.id, uuids));
      await notePersonsChangedOutsideWorker(trx);
    }
    const after: Record<string, unknown> = { distinct_ids: personDistinctIds };
    if (request.distinctIdsToSplit) after.distinct_ids_to_split = request.distinctIdsToSplit;
    await logPersonActivity(
      trx,
      principal,
      team,
      person,
      'split_person',
      [{ type: 'Person', action: 'split', field: null, before: null, after }],
      person.uuid,
    );
  });
}
