/**
 * Feature flags: PostHog's `/api/projects/:project_id/feature_flags/` (flags belong to the
 * environment's project), their `activity/`, the group types for aggregation, and what a person
 * gets, asked as the SDKs ask (`POST /flags/?v=2` with the project API key).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Paginated } from './client';

export interface FlagProperty {
  key: string;
  type: 'person' | 'cohort' | 'group' | 'flag' | string;
  operator?: string;
  value?: unknown;
  group_type_index?: number;
  cohort_name?: string | null;
}

export interface ConditionGroup {
  properties?: FlagProperty[];
  rollout_percentage?: number | null;
  variant?: string | null;
}

export interface Variant {
  key: string;
  name?: string;
  rollout_percentage: number;
}

export interface FlagFilters {
  groups?: ConditionGroup[];
  multivariate?: { variants?: Variant[] } | null;
  payloads?: Record<string, string>;
  aggregation_group_type_index?: number | null;
}

export interface UserBasic {
  id: number;
  email: string;
  first_name: string;
}

export interface FeatureFlag {
  id: number;
  key: string;
  name: string;
  filters: FlagFilters;
  active: boolean;
  deleted: boolean;
  created_by: UserBasic | null;
  created_at: string;
  updated_at: string;
  version: number;
  status: string;
}

export interface FlagListParams {
  search?: string;
  active?: '' | 'true' | 'false';
  type?: '' | 'boolean' | 'multivariant';
  created_by_id?: string;
  offset?: number;
}

export const FLAGS_PAGE = 50;

const flagsPath = (projectId: number) => `/api/projects/${projectId}/feature_flags/`;

export function useFlags(projectId: number, params: FlagListParams) {
  const query = new URLSearchParams({ limit: String(FLAGS_PAGE), offset: String(params.offset ?? 0) });
  for (const name of ['search', 'active', 'type', 'created_by_id'] as const) {
    const value = params[name];
    if (value) query.set(name, value);
  }
  return useQuery({
    queryKey: ['flags', projectId, 'list', query.toString()],
    queryFn: ({ signal }) => api<Paginated<FeatureFlag>>(`${flagsPath(projectId)}?${query}`, { signal }),
    placeholderData: keepPreviousData,
  });
}

/** The people who created the project's flags (for the "created by" filter). */
export function useFlagCreators(projectId: number) {
  return useQuery({
    queryKey: ['flags', projectId, 'creators'],
    queryFn: async ({ signal }) => {
      const all = await api<Paginated<FeatureFlag>>(`${flagsPath(projectId)}?limit=1000`, { signal });
      const creators = new Map<number, UserBasic>();
      for (const flag of all.results) if (flag.created_by) creators.set(flag.created_by.id, flag.created_by);
      return [...creators.values()];
    },
    staleTime: 30_000,
  });
}

export function useFlag(projectId: number, id: number | undefined) {
  return useQuery({
    queryKey: ['flags', projectId, 'one', id],
    queryFn: ({ signal }) => api<FeatureFlag>(`${flagsPath(projectId)}${id}/`, { signal }),
    enabled: id !== undefined,
  });
}

export type FlagWrite = Partial<Pick<FeatureFlag, 'key' | 'name' | 'filters' | 'active' | 'deleted'>>;

export function useSaveFlag(projectId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: FlagWrite }) =>
      api<FeatureFlag>(id === undefined ? flagsPath(projectId) : `${flagsPath(projectId)}${id}/`, {
        method: id === undefined ? 'POST' : 'PATCH',
        body,
      }),
    onSuccess: (flag) => {
      client.setQueryData(['flags', projectId, 'one', flag.id], flag);
      void client.invalidateQueries({ queryKey: ['flags', projectId] });
    },
  });
}

export type { ActivityEntry, ActivityPage } from './activity';

/** Where a flag's change history is read, and cached. */
export const flagActivity = (projectId: number, id: number) => ({
  path: `${flagsPath(projectId)}${id}/activity/`,
  queryKey: ['flags', projectId, 'activity', id] as const,
});

/** One flag as `/flags` v2 answers it. */
export interface EvaluatedFlag {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason?: { code: string; description?: string | null; condition_index?: number | null };
  metadata?: { id: number; version: number; payload?: string | null };
}

export interface FlagsAnswer {
  flags: Record<string, EvaluatedFlag>;
  errorsWhileComputingFlags?: boolean;
}

/**
 * What `distinctId` gets, asked as posthog-js asks: the public `/flags` endpoint with the project
 * API key, judged on the person's stored properties (and whatever `personProperties` adds).
 */
export function evaluateFlags(apiToken: string, distinctId: string, groups?: Record<string, string>) {
  return api<FlagsAnswer>('/flags/?v=2', {
    method: 'POST',
    body: { token: apiToken, distinct_id: distinctId, ...(groups ? { groups } : {}) },
    allowUnauthenticated: true,
  });
}
