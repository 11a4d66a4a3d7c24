import type { Group } from '../../api/groups';
import { displayValue } from '../activity/EventsTable';

/** The group page's address: PostHog's `/project/:id/groups/:index/:key`. */
export function groupPath(environmentId: number, group: Pick<Group, 'group_type_index' | 'group_key'>): string {
  return `/project/${environmentId}/groups/${group.group_type_index}/${encodeURIComponent(group.group_key)}`;
}

/** A group's name as PostHog shows it: its `name` property, else its key. */
export function groupName(group: Group): string {
  return displayValue(group.group_properties.name) || group.group_key;
}
