/** Groups, as PostHog's groups API serves them: the group types, a type's groups (search, paged), one group. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Paginated } from './client';

export interface GroupType {
  group_type: string;
  group_type_index: number;
  name_singular: string | null;
  name_plural: string | null;
}

export interface Group {
  group_type_index: number;
  group_key: string;
  group_properties: Record<string, unknown>;
  created_at: string;
}

export const GROUPS_PAGE_SIZE = 100;

const base = (environmentId: number) => `/api/environments/${environmentId}`;

export function useGroupTypes(environmentId: number) {
  return useQuery({
    queryKey: ['groups', environmentId, 'types'],
    queryFn: ({ signal }) => api<GroupType[]>(`${base(environmentId)}/groups_types/`, { signal }),
  });
}

/** One page of a group type's groups, newest first; `search` matches the key or the properties. */
export function useGroups(environmentId: number, groupTypeIndex: number, search: string, offset: number) {
  return useQuery({
    queryKey: ['groups', environmentId, 'list', groupTypeIndex, search, offset],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({
        group_type_index: String(groupTypeIndex),
        limit: String(GROUPS_PAGE_SIZE),
        offset: String(offset),
      });
      if (search) params.set('search', search);
      return api<Paginated<Group>>(`${base(environmentId)}/groups/?${params}`, { signal });
    },
    placeholderData: keepPreviousData,
    // An address such as /groups/abc names no type: nothing to ask.
    enabled: Number.isInteger(groupTypeIndex) && groupTypeIndex >= 0,
  });
}

/** One group, by its type and key (PostHog's `groups/find/`). */
export function useGroup(environmentId: number, groupTypeIndex: number, groupKey: string) {
  return useQuery({
    queryKey: ['groups', environmentId, 'one', groupTypeIndex, groupKey],
    queryFn: ({ signal }) =>
      api<Group>(
        `${base(environmentId)}/groups/find/?${new URLSearchParams({ group_type_index: String(groupTypeIndex), group_key: groupKey })}`,
        {
          signal,
        },
      ),
    retry: false,
  });
}

/** The type's plural name, as PostHog shows it ("organizations"), else its own name. */
export function groupTypeLabel(type: GroupType, plural = true): string {
  return (plural ? type.name_plural : type.name_singular) || type.group_type;
}
