import type { Team } from '../../environments/models.js';
import type { IngestionWarning } from '../core/index.js';
import type { BatchContext } from './batch-context.js';
import { processGroups } from './groups-step.js';
import { personUuidFromDistinctId } from '../../persons/person-uuid.js';
import { processPerson } from './person-processor.js';
import { withGroupProperties, type PreparedEvent } from './prepare.js';

export interface PipelineOptions {
  /** Spike detection deferred this event's person processing: store it, attribute it, change no person. */
  deferPerson?: boolean;
}

export type PipelineResult =
  { stored: true; warnings: IngestionWarning[] } | { stored: false; reason: 'duplicate' | 'dropped'; warnings: IngestionWarning[] };

/**
 * One event through PostHog's pipeline (docs/posthog-parity.md), as small steps:
 * dedupe → (prepared: route → timestamp → person mode → properties → IP and GeoIP) → groups →
 * person → store. The prepared steps read nothing stored and ran already (prepare.ts); these
 * read and change the batch's persons and groups. Person changes and the event row go to the
 * batch context, which writes them at the batch's end.
 */
export async function processPreparedEvent(
  batch: BatchContext,
  team: Team,
  prepared: PreparedEvent,
  options: PipelineOptions = {},
): Promise<PipelineResult> {
  // Known for almost every event (the batch's preload), so usually no await.
  if (batch.knownStored(team.id, prepared.uuid) ?? (await batch.isStored(team.id, prepared.uuid))) {
    return { stored: false, reason: 'duplicate', warnings: [] };
  }
  const warnings = [...prepared.warnings];
  if (prepared.mode === 'drop') return { stored: false, reason: 'dropped', warnings };

  let propertiesJson = prepared.propertiesJson;
  // Checked first so that events without groups (most) do not pay for an await.
  if (prepared.groups) {
    const readOnly = prepared.mode === 'lookup';
    const added = await processGroups(
      batch.db,
      batch.groupTypes,
      batch.groups,
      team.id,
      prepared.groups,
      prepared.timestamp,
      warnings,
      readOnly,
    );
    propertiesJson = withGroupProperties(propertiesJson, prepared.ownGroupKeys, added);
  }

  let personUuid: string;
  if (prepared.mode === 'process' && !options.deferPerson) {
    const pending = processPerson(batch.persons, personEvent(team, prepared));
    const outcome = pending instanceof Promise ? await pending : pending;
    if (outcome.warnings.length > 0) warnings.push(...outcome.warnings);
    personUuid = outcome.personUuid;
  } else {
    // Personless, `lookup` (read only) or deferred: attributed to the person the id has, if any.
    const loaded = batch.persons.loaded(team.id, prepared.distinctId);
    const existing = loaded === undefined ? await batch.persons.get(team.id, prepared.distinctId) : loaded;
    if (existing) personUuid = existing.uuid;
    else {
      personUuid = personUuidFromDistinctId(team.id, prepared.distinctId);
      batch.persons.notePersonless(team.id, prepared.distinctId);
    }
  }

  batch.addEvent(
    team.id,
    prepared.uuid,
    prepared.event,
    prepared.distinctId,
    personUuid,
    propertiesJson,
    prepared.timestamp,
    prepared.sessionId,
    prepared.elementsChain,
  );
  return { stored: true, warnings };
}

function personEvent(team: Team, prepared: PreparedEvent) {
  return {
    teamId: team.id,
    uuid: prepared.uuid,
    event: prepared.event,
    distinctId: prepared.distinctId,
    update: prepared.update,
    merge: prepared.merge,
    timestamp: prepared.timestamp,
  };
}

/** Only the person part of an event whose person processing spike detection deferred. */
export async function processDeferredPerson(batch: BatchContext, team: Team, prepared: PreparedEvent): Promise<IngestionWarning[]> {
  if (prepared.mode !== 'process') return [];
  const outcome = await processPerson(batch.persons, personEvent(team, prepared));
  return [...prepared.warnings, ...outcome.warnings];
}
