import type { Kysely } from 'kysely';
import type { Schema } from '../../platform/db/schema.js';
import type { GeoipService } from '../../geoip/geoip-service.js';
import type { Team } from '../../environments/models.js';
import type { OutboxRow } from '../../events/outbox-rows.js';
import { getTeam } from '../../environments/tenancy-store.js';
import type { IngestionWarning } from '../core/index.js';
import { insertWarnings, type Lane, type QueuedEvent, type WarningRow } from '../queue.js';
import { InListQuery } from '../../platform/db/multi-row-insert.js';
import { rowIdsOf, type QueueRecord } from '../queue-records.js';
import { BatchContext } from './batch-context.js';
import { processDeferredPerson, processPreparedEvent } from './event-pipeline.js';
import { isUnprepared, prepareQueuedEvent, ReceiptClock, type PreparedEvent, type PreparedRow } from './prepare.js';
import type { PersonCache } from './person-cache.js';
import type { SpikeDetector } from './spike-detector.js';
import { DefinitionsBatch, DefinitionsCache } from './definitions-step.js';
import { chunks } from '../../lib/chunks.js';

type Db = Kysely<Schema>;
export type { QueueRecord };

/**
 * Takes the batch's events out of the queue, in the batch's transaction; returns how many of the
 * rows it meant to change it changed, and how many it meant to. By default every row of the batch
 * is deleted (a batch holds whole rows); one event of a chunk retried alone rewrites the chunk
 * instead (one-by-one.ts).
 */
export type Dequeue = (trx: Db, records: QueueRecord[]) => Promise<{ changed: number; expected: number }>;

export interface BatchDeps {
  spikes: SpikeDetector;
  geoip?: GeoipService | undefined;
  /** Group type indexes known to be committed, shared by all batches of the worker. */
  groupTypes: Map<string, number>;
  /** Persons of committed batches, shared by all batches of the worker. */
  personCache?: PersonCache | undefined;
  /** Event and property definitions the worker's committed batches wrote. */
  definitions?: DefinitionsCache | undefined;
  /**
   * Read the batch's persons locked (PostgreSQL): set when the batch runs again after losing a
   * race with another worker's batch, so that it does not lose it again (conflict-retry.ts).
   */
  lockPersons?: boolean;
  /** Records a `person_processing_deferred` warning, at most once a minute per distinct id. */
  warnHot(teamId: number, distinctId: string, now: number, record: (w: IngestionWarning[]) => void): void;
}

export interface BatchOutcome {
  /** Teams whose first event this batch stored. */
  firstEventTeams: Set<number>;
  /** Events the batch queued for ClickHouse (its outbox row's). */
  outboxEvents: number;
  /** The outbox rows it wrote (the copy takes their text from here once the batch committed). */
  outboxRows: OutboxRow[];
  /** Call once the batch's transaction has committed. */
  committed(): void;
}

/** The batch's rows were no longer all in the queue: the batch is rolled back and read again. */
export class QueueRowsGone extends Error {
  constructor(readonly missing: number) {
    super(`${missing} queue rows of the batch were deleted meanwhile`);
  }
}

/** The processed rows leave the queue (in the batch's transaction). */
const DELETE_QUEUE_ROWS = new InListQuery((db: Db, _: [], ids: number[]) => db.deleteFrom('ingestion_queue').where('id', 'in', ids), 1000);

const deleteRows: Dequeue = async (trx, records) => {
  const ids = rowIdsOf(records);
  return { changed: await DELETE_QUEUE_ROWS.executeCountingRows(trx, [], ids), expected: ids.length };
};

/**
 * The batch's rows prepared (prepare.ts): as prepared ahead on the prepare thread where that is
 * still good, else here. A row prepared with another `anonymize_ips` than its environment has now
 * is prepared again; a row that could not be prepared is tried here, so its error is the batch's.
 * Rows of environments deleted since capture are undefined: their events go with them.
 */
function prepareBatch(
  rows: QueueRecord[],
  teams: Map<number, Team | null>,
  geoip: GeoipService | undefined,
  ahead: PreparedRow[] | undefined,
): Array<PreparedEvent | undefined> {
  const clock = new ReceiptClock();
  return rows.map((row, i) => {
    const team = teams.get(Number(row.team_id));
    if (!team) return undefined;
    const anonymizeIps = team.settings.anonymize_ips === true;
    const early = ahead?.[i];
    if (early && !isUnprepared(early) && early.anonymizeIps === anonymizeIps) return early;
    return prepareQueuedEvent(JSON.parse(row.payload) as QueuedEvent, { geoip, anonymizeIps, clock });
  });
}

/**
 * Before the first event: which of the batch's uuids are stored already, the persons of every
 * distinct id it names (including the other side of each merge), and the groups its
 * `$groupidentify`s name (of types whose index is known), one query per team (and group type)
 * for each, instead of several queries per event.
 */
async function preload(batch: BatchContext, rows: QueueRecord[], prepared: Array<PreparedEvent | undefined>): Promise<void> {
  const byTeam = new Map<number, { uuids: string[]; distinctIds: string[]; groupKeys: Map<number, string[]> }>();
  for (let i = 0; i < rows.length; i++) {
    const event = prepared[i];
    if (!event) continue;
    const teamId = Number(rows[i]!.team_id);
    let entry = byTeam.get(teamId);
    if (!entry) byTeam.set(teamId, (entry = { uuids: [], distinctIds: [], groupKeys: new Map() }));
    if (!event.personOnly) entry.uuids.push(event.uuid);
    entry.distinctIds.push(event.distinctId);
    if (event.merge) entry.distinctIds.push(event.merge.otherDistinctId);
    const group = event.groups?.identified;
    // A `$groupidentify` without a key makes sure of its type only: no group to load.
    const index = group?.key === undefined ? undefined : batch.groupTypes.known(teamId, group.type);
    if (index !== undefined) {
      let keys = entry.groupKeys.get(index);
      if (!keys) entry.groupKeys.set(index, (keys = []));
      keys.push(group!.key!);
    }
  }
  for (const [teamId, entry] of byTeam) {
    await batch.preloadStored(teamId, entry.uuids);
    await batch.persons.preload(teamId, entry.distinctIds);
    for (const [groupTypeIndex, keys] of entry.groupKeys) await batch.groups.preload(teamId, groupTypeIndex, keys);
  }
}

/** The environments of the batch's rows (null: deleted since capture). */
async function loadTeams(trx: Db, rows: QueueRecord[]): Promise<Map<number, Team | null>> {
  const teams = new Map<number, Team | null>();
  for (const row of rows) {
    const teamId = Number(row.team_id);
    if (!teams.has(teamId)) teams.set(teamId, (await getTeam(trx, teamId)) ?? null);
  }
  return teams;
}

/**
 * Processes queue rows inside the caller's transaction, in queue order: every event is applied to
 * the batch's in-memory state, then everything is written in a few multi-row statements, and the
 * queue rows are deleted in the same transaction. `ahead`: the rows as the prepare thread
 * prepared them, in the same order.
 */
export async function processBatch(
  trx: Db,
  lane: Lane,
  rows: QueueRecord[],
  deps: BatchDeps,
  ahead?: PreparedRow[],
  dequeue: Dequeue = deleteRows,
): Promise<BatchOutcome> {
  const batch = new BatchContext(trx, deps.groupTypes, deps.personCache, deps.lockPersons);
  const teams = await loadTeams(trx, rows);
  const prepared = prepareBatch(rows, teams, deps.geoip, ahead);
  await preload(batch, rows, prepared);
  const warnings: WarningRow[] = [];
  const overflow: Array<{ team_id: number; lane: Lane; distinct_id: string; payload: string; received_at: string; partition: number }> = [];
  const firstEventTeams = new Set<number>();
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const definitions = new DefinitionsBatch(deps.definitions ?? new DefinitionsCache(), now);
  // No closure per event (under tsx every function made per event also gets its name defined).
  const record = (teamId: number, list: IngestionWarning[]) => {
    for (const w of list) warnings.push({ teamId, type: w.type, source: 'worker', details: w.details, timestamp: nowIso });
  };
  const personNow = { deferPerson: false };
  const personDeferred = { deferPerson: true };
  for (let i = 0; i < rows.length; i++) {
    const event = prepared[i];
    if (!event) continue; // the environment was deleted after capture: its events go with it
    const team = teams.get(Number(rows[i]!.team_id))!;
    const teamId = team.id;

    if (event.personOnly) {
      record(teamId, await processDeferredPerson(batch, team, event));
      continue;
    }
    // Every event counts towards its distinct id's rate, but only one that processes its person
    // has a person step to defer: a personless or `$exception` event is stored as it would be
    // anyway, with no deferred row queued and no warning.
    const hot = lane === 'realtime' && !deps.spikes.allow(`${teamId}:${event.distinctId}`, now);
    const deferPerson = hot && event.mode === 'process';
    const result = await processPreparedEvent(batch, team, event, deferPerson ? personDeferred : personNow);
    if (result.warnings.length > 0) record(teamId, result.warnings);
    if (deferPerson && result.stored) {
      const queued = JSON.parse(rows[i]!.payload) as QueuedEvent;
      overflow.push({
        team_id: teamId,
        lane: 'overflow',
        distinct_id: event.distinctId,
        payload: JSON.stringify({ ...queued, person_only: true }),
        received_at: queued.now,
        // The event's partition: its deferred update stays in line with the distinct id's events.
        partition: rows[i]!.partition,
      });
      deps.warnHot(teamId, event.distinctId, now, (list) => record(teamId, list));
    }
    if (result.stored) {
      const group = event.event === '$groupidentify' ? event.groups?.identified : undefined;
      definitions.note(
        team.projectId,
        teamId,
        event.event,
        event.definitions,
        group ? batch.groupTypes.known(teamId, group.type) : undefined,
      );
      if (!team.ingestedEvent) firstEventTeams.add(teamId);
    }
  }
  await batch.flush();
  await definitions.write(trx);
  for (const chunk of chunks(overflow, 500)) {
    await trx.insertInto('ingestion_queue').values(chunk).execute();
  }
  await insertWarnings(trx, warnings);
  for (const teamId of firstEventTeams) {
    await trx.updateTable('teams').set({ ingested_event: true }).where('id', '=', teamId).execute();
  }
  const { changed, expected } = await dequeue(trx, rows);
  // Some of these rows were deleted meanwhile: by another worker that processed them (this one
  // lost its lease while it worked; applying them again would repeat what is not idempotent,
  // deferred person updates), or with their environment. Either way the batch is read again.
  if (changed !== expected) throw new QueueRowsGone(expected - changed);
  return {
    firstEventTeams,
    outboxEvents: batch.outboxEvents,
    outboxRows: batch.outboxRows,
    committed: () => {
      batch.committed();
      definitions.committed();
    },
  };
}
