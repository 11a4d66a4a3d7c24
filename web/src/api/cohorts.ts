/**
 * Cohorts: PostHog's `/api/projects/:project_id/cohorts/` (property rules, or static lists filled
 * from a CSV upload sent as multipart `csv`), and their members through the persons list.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, csrfHeader, readResponse, type Paginated } from './client';

export interface CohortPropertyFilter {
  key: string;
  type: 'person' | string;
  operator?: string;
  value?: unknown;
  negation?: boolean;
}

/** `{type, values}` where values are filters or nested groups. */
export interface CohortGroup {
  type: 'AND' | 'OR';
  values: Array<CohortGroup | CohortPropertyFilter>;
}

export interface Cohort {
  id: number;
  name: string;
  description: string;
  filters: { properties?: CohortGroup } | null;
  is_static: boolean;
  count: number | null;
  /** A dynamic cohort's count is being calculated in the background; its last calculations failed this many times in a row. */
  is_calculating: boolean;
  errors_calculating: number;
  created_at: string;
  created_by: { email: string } | null;
  cohort_type: string;
  deleted: boolean;
}

const cohortsPath = (projectId: number) => `/api/projects/${projectId}/cohorts/`;

export function useCohorts(projectId: number, offset = 0, limit = 100) {
  return useQuery({
    queryKey: ['cohorts', projectId, 'list', offset, limit],
    queryFn: ({ signal }) => api<Paginated<Cohort>>(`${cohortsPath(projectId)}?limit=${limit}&offset=${offset}`, { signal }),
    placeholderData: keepPreviousData,
  });
}

export function useCohort(projectId: number, id: number | undefined) {
  return useQuery({
    queryKey: ['cohorts', projectId, 'one', id],
    queryFn: ({ signal }) => api<Cohort>(`${cohortsPath(projectId)}${id}/`, { signal }),
    enabled: id !== undefined,
  });
}

export interface CohortWrite {
  name?: string;
  description?: string;
  is_static?: boolean;
  filters?: { properties: CohortGroup };
  deleted?: boolean;
}

/**
 * A cohort's fields as a multipart form with the CSV file as `csv`, as PostHog's UI uploads it
 * (the JSON client cannot carry a file); CSRF as every unsafe request.
 */
async function sendMultipart<T>(path: string, method: string, fields: Record<string, string>, csv: File): Promise<T> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('csv', csv, csv.name);
  const headers = { accept: 'application/json', ...csrfHeader() };
  const response = await fetch(path, { method, body: form, headers, credentials: 'same-origin' });
  return readResponse<T>(response);
}

export function useSaveCohort(projectId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body, csv }: { id?: number; body: CohortWrite; csv?: File | null }) => {
      const path = id === undefined ? cohortsPath(projectId) : `${cohortsPath(projectId)}${id}/`;
      const method = id === undefined ? 'POST' : 'PATCH';
      if (csv) {
        const fields: Record<string, string> = {};
        if (body.name !== undefined) fields.name = body.name;
        if (body.description !== undefined) fields.description = body.description;
        if (body.is_static !== undefined) fields.is_static = String(body.is_static);
        return sendMultipart<Cohort>(path, method, fields, csv);
      }
      return api<Cohort>(path, { method, body });
    },
    onSuccess: (cohort) => {
      client.setQueryData(['cohorts', projectId, 'one', cohort.id], cohort);
      void client.invalidateQueries({ queryKey: ['cohorts', projectId] });
      void client.invalidateQueries({ queryKey: ['cohort-members', projectId, cohort.id] });
    },
  });
}

export interface PersonRow {
  id: number | string;
  uuid: string;
  name?: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
}

export const MEMBERS_PAGE = 50;

/** A cohort's members: `GET /cohorts/:id/persons/`, paged with `limit`/`offset`. */
export function useCohortMembers(projectId: number, cohortId: number, offset: number) {
  return useQuery({
    queryKey: ['cohort-members', projectId, cohortId, offset],
    queryFn: ({ signal }) =>
      api<Paginated<PersonRow>>(`${cohortsPath(projectId)}${cohortId}/persons/?limit=${MEMBERS_PAGE}&offset=${offset}`, { signal }),
    placeholderData: keepPreviousData,
  });
}
