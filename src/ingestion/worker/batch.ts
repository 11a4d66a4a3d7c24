import type { Kysely, Selectable } from 'kysely';
import type { Schema } from '../../db/schema.js';
import type { GeoipService } from '../../geoip/geoip-service.js';
import type { Team } from '../../tenancy/models.js';
import { getTeam } from '../../tenancy/store.js';
import { detectMergeRequest, type IngestionWarning } from '../core/index.js';
import { insertWarnings, type Lane, type QueuedEvent, type WarningRow } from '../queue.js';
import { InListQuery } from '../../db/multi-row-insert.js';
import type { IngestionQueueTable } from '../tables.js';
import { BatchContext } from './batch-context.js';
import { processDeferredPerson, processQueuedEvent } from './event-pipeline.js';
import { identifiedGroup } from './groups-step.js';
import type { PersonPropertiesCache } from './person-unit.js';
import type { SpikeDetector } from './spike-detector.js';

type Db = Kysely<Schema>;
/** What the worker reads of a queue row (the distinct id and the rest are inside the payload). */
export type QueueRecord = Pick<Selectable<IngestionQueueTable>, 'id' | 'team_id' | 'payload'>;

export interface BatchDeps {
  spikes: SpikeDetector;
  geoip?: GeoipService | undefined;
  /** Group type indexes known to be committed, shared by all batches of the worker. */
  groupTypes: Map<string, number>;
  /** Parsed person properties of committed batches, shared by all batches of the worker. */
  personCache?: PersonPropertiesCache | undefined;
  /** Records a `person_processing_deferred` warning, at most once a minute per distinct id. */
  warnHot(teamId: number, distinctId: string, now: number, record: (w: IngestionWarning[]) => void): void;
}

export interface BatchOutcome {
  /** Teams whose first event this batch stored. */
  firstEventTeams: Set<number>;
  /** Call once the batch's transaction has committed. */
  committed(): void;
}

/** The processed rows leave the queue (in the batch's transaction). */
const DELETE_QUEUE_ROWS = new InListQuery((db: Db, _: [], ids: number[]) => db.deleteFrom('ingestion_queue').where('id', 'in', ids), 1000);

interface Parsed {
  teamId: number;
  queued: QueuedEvent;
}

/**
 * Before the first event: the batch's teams, which of its uuids are stored already, the persons
 * of every distinct id it names (including the other side of each merge), and the groups its
 * `$groupidentify`s name (of types whose index is known), one query per team (and group type)
 * for each, instead of several queries per event.
 */
async function preload(trx: Db, batch: BatchContext, parsed: Parsed[]): Promise<Map<number, Team | null>> {
  const teams = new Map<number, Team | null>();
  const byTeam = new Map<number, { uuids: string[]; distinctIds: string[]; groupKeys: Map<number, string[]> }>();
  for (const { teamId, queued } of parsed) {
    let entry = byTeam.get(teamId);
    if (!entry) byTeam.set(teamId, (entry = { uuids: [], distinctIds: [], groupKeys: new Map() }));
    if (!queued.person_only) entry.uuids.push(queued.uuid);
    entry.distinctIds.push(queued.distinct_id);
    const merge = detectMergeRequest({ event: queued.event, distinctId: queued.distinct_id, properties: queued.properties ?? {} });
    if (merge) entry.distinctIds.push(merge.otherDistinctId);
    if (queued.event === '$groupidentify' && !queued.person_only) addIdentifiedGroup(batch, teamId, queued.properties ?? {}, entry.groupKeys);
  }
  for (const [teamId, entry] of byTeam) {
    const team = (await getTeam(trx, teamId)) ?? null;
    teams.set(teamId, team);
    if (!team) continue;
    await batch.preloadStored(teamId, entry.uuids);
    await batch.persons.preload(teamId, entry.distinctIds);
    for (const [groupTypeIndex, keys] of entry.groupKeys) await batch.groups.preload(teamId, groupTypeIndex, keys);
  }
  return teams;
}

/** The group a `$groupidentify` names, by type index, when the type's index is known already. */
function addIdentifiedGroup(batch: BatchContext, teamId: number, properties: Record<string, unknown>, groupKeys: Map<number, string[]>): void {
  const group = identifiedGroup(properties);
  const index = group && batch.groupTypes.known(teamId, group.type);
  if (index === undefined) return;
  let keys = groupKeys.get(index);
  if (!keys) groupKeys.set(index, (keys = []));
  keys.push(group!.key);
}

/**
 * Processes queue rows inside the caller's transaction, in queue order: every event is applied to
 * the batch's in-memory state, then everything is written in a few multi-row statements, and the
 * queue rows are deleted in the same transaction.
 */
export async function processBatch(trx: Db, lane: Lane, rows: QueueRecord[], deps: BatchDeps): Promise<BatchOutcome> {
  const batch = new BatchContext(trx, deps.groupTypes, deps.personCache);
  const parsed: Parsed[] = rows.map((row) => ({ teamId: Number(row.team_id), queued: JSON.parse(row.payload) as QueuedEvent }));
  const teams = await preload(trx, batch, parsed);
  const warnings: WarningRow[] = [];
  const overflow: Array<{ team_id: number; lane: Lane; distinct_id: string; payload: string; received_at: string }> = [];
  const firstEventTeams = new Set<number>();
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  // No closure per event (under tsx every function made per event also gets its name defined).
  const record = (teamId: number, list: IngestionWarning[]) => {
    for (const w of list) warnings.push({ teamId, type: w.type, source: 'worker', details: w.details, timestamp: nowIso });
  };
  const pipelineDeps = { geoip: deps.geoip };
  const personNow = { deferPerson: false };
  const personDeferred = { deferPerson: true };
  for (const { teamId, queued } of parsed) {
    const team = teams.get(teamId);
    if (!team) continue; // the environment was deleted after capture: its events go with it

    if (queued.person_only) {
      record(teamId, await processDeferredPerson(batch, team, queued));
      continue;
    }
    const deferPerson = lane === 'realtime' && !deps.spikes.allow(`${teamId}:${queued.distinct_id}`, now);
    const result = await processQueuedEvent(batch, team, queued, pipelineDeps, deferPerson ? personDeferred : personNow);
    if (result.warnings.length > 0) record(teamId, result.warnings);
    if (deferPerson && result.stored) {
      overflow.push({ team_id: teamId, lane: 'overflow', distinct_id: queued.distinct_id, payload: JSON.stringify({ ...queued, person_only: true }), received_at: queued.now });
      deps.warnHot(teamId, queued.distinct_id, now, (list) => record(teamId, list));
    }
    if (result.stored && !team.ingestedEvent) firstEventTeams.add(teamId);
  }
  await batch.flush();
  for (let i = 0; i < overflow.length; i += 500) {
    await trx.insertInto('ingestion_queue').values(overflow.slice(i, i + 500)).execute();
  }
  await insertWarnings(trx, warnings);
  for (const teamId of firstEventTeams) {
    await trx.updateTable('teams').set({ ingested_event: true }).where('id', '=', teamId).execute();
  }
  await DELETE_QUEUE_ROWS.execute(trx, [], rows.map((r) => r.id));
  return { firstEventTeams, committed: () => batch.committed() };
}
