/**
 * Early access features: PostHog's `/api/projects/:project_id/early_access_feature/`, and the
 * persons who opted in or out (the persons list filtered on `$feature_enrollment/<flag key>`).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Paginated } from './client';
import type { Person } from './persons';

export const STAGES = ['draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived'] as const;
export type Stage = (typeof STAGES)[number];

export interface EarlyAccessFeature {
  id: string;
  feature_flag: { id: number; key: string; active: boolean } | null;
  name: string;
  description: string;
  stage: Stage;
  documentation_url: string;
  created_at: string;
  created_by: { email: string } | null;
}

export interface EarlyAccessFeatureWrite {
  name?: string;
  description?: string;
  stage?: Stage;
  documentation_url?: string;
}

const featuresPath = (projectId: number) => `/api/projects/${projectId}/early_access_feature/`;
const key = (projectId: number) => ['early-access', projectId] as const;

export function useEarlyAccessFeatures(projectId: number, offset: number, limit: number) {
  return useQuery({
    queryKey: [...key(projectId), 'list', offset, limit],
    queryFn: ({ signal }) => api<Paginated<EarlyAccessFeature>>(`${featuresPath(projectId)}?limit=${limit}&offset=${offset}`, { signal }),
    placeholderData: keepPreviousData,
  });
}

export function useEarlyAccessFeature(projectId: number, id: string | undefined) {
  return useQuery({
    queryKey: [...key(projectId), 'one', id],
    queryFn: ({ signal }) => api<EarlyAccessFeature>(`${featuresPath(projectId)}${encodeURIComponent(id!)}/`, { signal }),
    enabled: id !== undefined,
    retry: false,
  });
}

export function useSaveEarlyAccessFeature(projectId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: EarlyAccessFeatureWrite }) =>
      api<EarlyAccessFeature>(id === undefined ? featuresPath(projectId) : `${featuresPath(projectId)}${id}/`, {
        method: id === undefined ? 'POST' : 'PATCH',
        body,
      }),
    onSuccess: (feature) => {
      client.setQueryData([...key(projectId), 'one', feature.id], feature);
      void client.invalidateQueries({ queryKey: key(projectId) });
    },
  });
}

export function useDeleteEarlyAccessFeature(projectId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`${featuresPath(projectId)}${id}/`, { method: 'DELETE' }),
    onSuccess: () => void client.invalidateQueries({ queryKey: key(projectId) }),
  });
}

export const ENROLLMENT_PAGE = 50;

/**
 * The persons whose `$feature_enrollment/<flag key>` is `opted` (what posthog-js's
 * `updateEarlyAccessFeatureEnrollment` sets), a page of them with their count.
 */
export function useEnrollments(environmentId: number, flagKey: string | undefined, opted: boolean, offset = 0, limit = ENROLLMENT_PAGE) {
  return useQuery({
    queryKey: ['early-access-enrollments', environmentId, flagKey, opted, offset, limit],
    queryFn: ({ signal }) => {
      const properties = [{ key: `$feature_enrollment/${flagKey}`, type: 'person', operator: 'exact', value: [String(opted)] }];
      const params = new URLSearchParams({ properties: JSON.stringify(properties), limit: String(limit), offset: String(offset) });
      return api<Paginated<Person>>(`/api/environments/${environmentId}/persons/?${params}`, { signal });
    },
    enabled: flagKey !== undefined,
    placeholderData: keepPreviousData,
  });
}
