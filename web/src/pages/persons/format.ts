import { displayValue } from '../activity/EventsTable';
import type { Person } from '../../api/persons';

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A date from the API, in the browser's time zone; the text as sent when it is not one. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeFormat.format(date);
}

/** The person's name as PostHog shows it (its display name), as text. */
export function personName(person: Person): string {
  return displayValue(person.name) || person.distinct_ids[0] || person.uuid;
}

/** The person page's address: PostHog's `/project/:id/person/:distinctId`. */
export function personPath(environmentId: number, distinctId: string): string {
  return `/project/${environmentId}/person/${encodeURIComponent(distinctId)}`;
}
