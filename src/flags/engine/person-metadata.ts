/**
 * Person metadata: columns of the person row that `person_metadata` filters read (PostHog's
 * PERSON_METADATA_FIELDS, `created_at` alone). PostHog's flags service puts them into the person's
 * property map under a reserved prefix, so that a person property of the same name never answers
 * for them; Hoglet does the same wherever a stored person is judged (flags, cohorts).
 */
import type { PropertyMap } from './types.js';

export const PERSON_METADATA_PREFIX = '__posthog_person_metadata__';

/** The property-map key under which a person_metadata field is judged. */
export function personMetadataKey(field: string): string {
  return `${PERSON_METADATA_PREFIX}${field}`;
}

/** The metadata of a stored person, under their keys (`created_at` as an ISO 8601 instant). */
export function personMetadataProperties(person: { createdAt: string }): PropertyMap {
  const instant = new Date(person.createdAt);
  return { [personMetadataKey('created_at')]: Number.isNaN(instant.getTime()) ? person.createdAt : instant.toISOString() };
}

/** A stored person's properties with its metadata, as cohorts and flags judge them. */
export function judgedPersonProperties(person: { properties: PropertyMap; createdAt: string }): PropertyMap {
  return { ...person.properties, ...personMetadataProperties(person) };
}
