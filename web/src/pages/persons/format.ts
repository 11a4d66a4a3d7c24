import { displayValue } from '../activity/EventsTable';
import type { Person } from '../../api/persons';

/** The person's name as PostHog shows it (its display name), as text. */
export function personName(person: Person): string {
  return displayValue(person.name) || person.distinct_ids[0] || person.uuid;
}

/** The person page's address: PostHog's `/project/:id/person/:distinctId`. */
export function personPath(environmentId: number, distinctId: string): string {
  return `/project/${environmentId}/person/${encodeURIComponent(distinctId)}`;
}
