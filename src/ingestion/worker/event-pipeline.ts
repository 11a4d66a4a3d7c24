import { toJson } from '../../db/values.js';
import { wellFormedText } from '../../lib/well-formed.js';
import type { GeoipService } from '../../geoip/geoip-service.js';
import type { Team } from '../../tenancy/models.js';
import {
  applyGeoipProperties,
  computeEventTimestamp,
  decidePersonProcessing,
  geoipLookupTarget,
  normalizePersonProperties,
  stripPersonUpdateFields,
  withoutIp,
  type IngestionWarning,
  type Properties,
} from '../core/index.js';
import type { QueuedEvent } from '../queue.js';
import type { BatchContext } from './batch-context.js';
import { processGroups, touchesGroups } from './groups-step.js';
import { personlessPersonUuid, processPerson } from './person-processor.js';

export interface PipelineDeps {
  geoip?: GeoipService | undefined;
}

export interface PipelineOptions {
  /** Spike detection deferred this event's person processing: store it, attribute it, change no person. */
  deferPerson?: boolean;
}

export type PipelineResult =
  | { stored: true; warnings: IngestionWarning[] }
  | { stored: false; reason: 'duplicate' | 'dropped'; warnings: IngestionWarning[] };

/** Step: the event's timestamp from timestamp, sent_at and offset (clock skew, future clamp). */
function resolveTimestamp(batch: BatchContext, queued: QueuedEvent, warnings: IngestionWarning[]): string {
  const received = batch.receivedAt(queued.now);
  const result = computeEventTimestamp({
    now: received.date,
    timestamp: queued.timestamp,
    sentAt: queued.sent_at ?? undefined,
    offset: queued.offset,
    properties: queued.properties,
  });
  if (result.warnings.length > 0) warnings.push(...result.warnings);
  const ms = result.timestamp.getTime();
  return ms === received.date.getTime() ? received.iso : result.timestamp.toISOString();
}

/**
 * Step: `$ip` from the request, GeoIP enrichment, then the environment's IP anonymisation.
 * (`$ip` goes into a copy: measured, a copy made whole is cheaper to stringify later than an
 * object grown by one key in place.)
 */
function enrichWithIp(properties: Properties, queued: QueuedEvent, team: Team, deps: PipelineDeps): Properties {
  let enriched = properties;
  if (queued.ip && enriched.$ip === undefined) enriched = { ...enriched, $ip: queued.ip };
  if (deps.geoip) {
    const target = geoipLookupTarget(enriched);
    if ('ip' in target) enriched = applyGeoipProperties(enriched, deps.geoip.lookup(target.ip));
  }
  if (team.settings.anonymize_ips === true) enriched = withoutIp(enriched);
  return enriched;
}

/**
 * One queued event through PostHog's pipeline (posthog-ingestion.md section 4), as small steps:
 * dedupe → timestamp → person mode → properties → IP and GeoIP → groups → person → store.
 * Person changes and the event row go to the batch context, which writes them at the batch's end.
 */
export async function processQueuedEvent(
  batch: BatchContext,
  team: Team,
  queued: QueuedEvent,
  deps: PipelineDeps,
  options: PipelineOptions = {},
): Promise<PipelineResult> {
  const warnings: IngestionWarning[] = [];
  // Known for almost every event (the batch's preload), so usually no await.
  if (batch.knownStored(team.id, queued.uuid) ?? (await batch.isStored(team.id, queued.uuid))) {
    return { stored: false, reason: 'duplicate', warnings };
  }

  const timestamp = resolveTimestamp(batch, queued, warnings);
  const source = { event: queued.event, properties: queued.properties, set: queued.set, setOnce: queued.set_once, unset: queued.unset };
  const mode = decidePersonProcessing(source);
  if (mode.warnings.length > 0) warnings.push(...mode.warnings);
  if (mode.kind === 'drop') return { stored: false, reason: 'dropped', warnings };

  let properties = normalizePersonProperties(source);
  properties = enrichWithIp(properties, queued, team, deps);
  if (mode.kind === 'personless') properties = stripPersonUpdateFields(properties);
  // Checked first so that events without groups (most) do not pay for an await.
  if (touchesGroups(queued.event, properties)) {
    warnings.push(...(await processGroups(batch.db, batch.groupTypes, batch.groups, team.id, queued.event, properties, timestamp)));
  }

  let personUuid: string;
  if (mode.kind === 'process' && !options.deferPerson) {
    const pending = processPerson(batch.persons, { teamId: team.id, uuid: queued.uuid, event: queued.event, distinctId: queued.distinct_id, properties, timestamp });
    const outcome = pending instanceof Promise ? await pending : pending;
    if (outcome.warnings.length > 0) warnings.push(...outcome.warnings);
    personUuid = outcome.personUuid;
  } else {
    const loaded = batch.persons.loaded(team.id, queued.distinct_id);
    const existing = loaded === undefined ? await batch.persons.get(team.id, queued.distinct_id) : loaded;
    personUuid = existing?.uuid ?? personlessPersonUuid(team.id, queued.distinct_id);
  }

  batch.addEvent(
    team.id,
    queued.uuid,
    queued.event,
    queued.distinct_id,
    personUuid,
    toJson(properties),
    timestamp,
    textColumn(properties.$session_id),
    textColumn(properties.$elements_chain),
  );
  return { stored: true, warnings };
}

/** A string property copied to a text column, well-formed like the JSON it comes from (toJson). */
function textColumn(value: unknown): string | null {
  return typeof value === 'string' ? wellFormedText(value) : null;
}

/** Only the person part of an event whose person processing spike detection deferred. */
export async function processDeferredPerson(batch: BatchContext, team: Team, queued: QueuedEvent): Promise<IngestionWarning[]> {
  const warnings: IngestionWarning[] = [];
  const source = { event: queued.event, properties: queued.properties, set: queued.set, setOnce: queued.set_once, unset: queued.unset };
  if (decidePersonProcessing(source).kind !== 'process') return warnings;
  const timestamp = resolveTimestamp(batch, queued, warnings);
  const properties = enrichWithIp(normalizePersonProperties(source), queued, team, {});
  const outcome = await processPerson(batch.persons, { teamId: team.id, uuid: queued.uuid, event: queued.event, distinctId: queued.distinct_id, properties, timestamp });
  return [...warnings, ...outcome.warnings];
}
