import type { Kysely } from 'kysely';
import type { Schema } from '../../platform/db/schema.js';
import { wellFormedText } from '../../lib/well-formed.js';
import { definableEventName, parseDefinitions, PROPERTY_KINDS } from '../../definitions/core/property-types.js';
import { recordDefinitions, type NewEventDefinition, type NewEventProperty, type NewPropertyDefinition } from '../../definitions/store.js';

const HOUR_MS = 3_600_000;

/** Past this many entries a cache starts over (its entries are only a saving: the writes are upserts). */
const MAX_ENTRIES = 200_000;

/**
 * What the worker's batches have written of the definitions, shared by all of them: the events'
 * shapes (project, event and the definitions string), the property definitions and event-property
 * pairs, and the hour in which each event definition's `last_seen_at` was last moved. All keyed by
 * project, as the rows are: a second environment's event of a name its project has met costs no
 * write either. A batch
 * writes only what is not here, so an event like one seen before costs two map lookups; the
 * caches are filled only after the batch's transaction committed.
 */
export class DefinitionsCache {
  readonly shapes = new Set<string>();
  readonly properties = new Set<string>();
  readonly eventProperties = new Set<string>();
  readonly eventHours = new Map<string, number>();

  /** For a worker that lost its lease or saw a database it does not know: learn again. */
  clear(): void {
    this.shapes.clear();
    this.properties.clear();
    this.eventProperties.clear();
    this.eventHours.clear();
  }
}

function addBounded(set: Set<string>, key: string): void {
  if (set.size >= MAX_ENTRIES) set.clear();
  set.add(key);
}

/** One batch's share: what it found new, written in its transaction, remembered once it commits. */
export class DefinitionsBatch {
  private readonly hour: number;
  private readonly seenAt: string;
  private readonly events = new Map<string, NewEventDefinition>();
  private readonly properties = new Map<string, NewPropertyDefinition>();
  private readonly eventProperties = new Map<string, NewEventProperty>();
  private readonly shapes = new Set<string>();

  constructor(
    private readonly cache: DefinitionsCache,
    now: number,
  ) {
    this.hour = Math.floor(now / HOUR_MS);
    this.seenAt = new Date(now).toISOString();
  }

  /**
   * A stored event of environment `teamId` of project `projectId`. `groupTypeIndex`: a
   * `$groupidentify`'s group type (its definitions are that type's).
   */
  note(projectId: number, teamId: number, rawEvent: string, definitions: string, groupTypeIndex: number | undefined): void {
    // Names are stored as the event's own text is (PostgreSQL refuses NUL): U+FFFD in place.
    const event = wellFormedText(rawEvent);
    if (!definableEventName(event)) return;
    const eventKey = `${projectId}\u0000${event}`;
    if (this.cache.eventHours.get(eventKey) !== this.hour && !this.events.has(eventKey)) {
      this.events.set(eventKey, { projectId, teamId, name: event, seenAt: this.seenAt });
    }
    if (definitions === '') return;
    const shapeKey = `${eventKey}\u0000${groupTypeIndex ?? -1}\u0000${definitions}`;
    if (this.cache.shapes.has(shapeKey) || this.shapes.has(shapeKey)) return;
    this.shapes.add(shapeKey);
    for (const parsed of parseDefinitions(definitions)) {
      const entry = { ...parsed, key: wellFormedText(parsed.key) };
      const type = PROPERTY_KINDS[entry.kind];
      const index = entry.kind === 'group' ? groupTypeIndex : -1;
      if (index === undefined) continue; // a group type the project could not take (past five)
      const propertyKey = `${projectId}\u0000${type}\u0000${index}\u0000${entry.key}`;
      if (!this.cache.properties.has(propertyKey) && !this.properties.has(propertyKey)) {
        this.properties.set(propertyKey, { projectId, teamId, name: entry.key, type, groupTypeIndex: index, propertyType: entry.type });
      }
      // Feature flag values ride on nearly every event; PostHog keeps no event-property pair for them.
      if (entry.kind !== 'event' || entry.key.startsWith('$feature/') || entry.key.startsWith('$feature_enrollment/')) continue;
      const pairKey = `${eventKey}\u0000${entry.key}`;
      if (!this.cache.eventProperties.has(pairKey) && !this.eventProperties.has(pairKey)) {
        this.eventProperties.set(pairKey, { projectId, teamId, event, property: entry.key });
      }
    }
  }

  /** In the batch's transaction. */
  async write(db: Kysely<Schema>): Promise<void> {
    if (this.events.size === 0 && this.properties.size === 0 && this.eventProperties.size === 0) return;
    await recordDefinitions(db, [...this.events.values()], [...this.properties.values()], [...this.eventProperties.values()]);
  }

  /** After the transaction committed. */
  committed(): void {
    const { cache } = this;
    for (const key of this.events.keys()) {
      if (cache.eventHours.size >= MAX_ENTRIES) cache.eventHours.clear();
      cache.eventHours.set(key, this.hour);
    }
    for (const key of this.shapes) addBounded(cache.shapes, key);
    for (const key of this.properties.keys()) addBounded(cache.properties, key);
    for (const key of this.eventProperties.keys()) addBounded(cache.eventProperties, key);
  }
}
