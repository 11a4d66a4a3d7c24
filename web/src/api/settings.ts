/**
 * Settings: the environment (`/api/environments/:id/` and its key actions), the user
 * (`/api/users/@me/`), personal API keys (`/api/personal_api_keys/`), the organization's members
 * and invites, and the project's environments.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Paginated } from './client';
import { ME_KEY } from './session';
import type { TeamBasic } from './types';

/** The environment as TeamSerializer answers it: the fields Settings reads and writes. */
export interface EnvironmentSettings {
  id: number;
  name: string;
  project_id: number;
  organization: string;
  api_token: string;
  secret_api_token: string | null;
  secret_api_token_backup: string | null;
  timezone: string;
  user_access_level: 'none' | 'member' | 'admin';
  autocapture_opt_out: boolean | null;
  autocapture_exceptions_opt_in: boolean | null;
  autocapture_web_vitals_opt_in: boolean | null;
  capture_performance_opt_in: boolean | null;
  capture_console_log_opt_in: boolean | null;
  capture_dead_clicks: boolean | null;
  session_recording_opt_in: boolean;
  session_recording_sample_rate: string | null;
  session_recording_minimum_duration_milliseconds: number | null;
  heatmaps_opt_in: boolean | null;
  surveys_opt_in: boolean | null;
  /** Where Slack subscriptions post (an incoming webhook's URL); null when none. */
  slack_incoming_webhook: string | null;
}

export const environmentKey = (id: number) => ['settings', id, 'environment'] as const;

export function useEnvironmentSettings(id: number) {
  return useQuery({
    queryKey: environmentKey(id),
    queryFn: ({ signal }) => api<EnvironmentSettings>(`/api/environments/${id}/`, { signal }),
  });
}

/** After the environment changed: its own query, and the list the shell reads (name, token, time zone). */
function useEnvironmentSaved(id: number) {
  const client = useQueryClient();
  return (answer: EnvironmentSettings) => {
    client.setQueryData(environmentKey(id), answer);
    void client.invalidateQueries({ queryKey: ['environments'] });
    void client.invalidateQueries({ queryKey: ['settings', 'project-environments'] });
  };
}

/** PATCH of some fields of the environment. */
export function useUpdateEnvironment(id: number) {
  const saved = useEnvironmentSaved(id);
  return useMutation({
    mutationFn: (changes: Partial<EnvironmentSettings>) =>
      api<EnvironmentSettings>(`/api/environments/${id}/`, { method: 'PATCH', body: changes }),
    onSuccess: saved,
  });
}

/** `reset_token/` (a new project API key) and `rotate_secret_token/`, `delete_secret_token_backup/`. */
export function useEnvironmentKeyAction(id: number, action: 'reset_token' | 'rotate_secret_token' | 'delete_secret_token_backup') {
  const saved = useEnvironmentSaved(id);
  return useMutation({
    mutationFn: () => api<EnvironmentSettings>(`/api/environments/${id}/${action}/`, { method: 'PATCH' }),
    onSuccess: saved,
  });
}

/** The environments of one project. */
export function useProjectEnvironments(projectId: number) {
  return useQuery({
    queryKey: ['settings', 'project-environments', projectId],
    queryFn: ({ signal }) => api<Paginated<TeamBasic>>(`/api/projects/${projectId}/environments/?limit=1000`, { signal }),
  });
}

export function useCreateEnvironment(projectId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<TeamBasic>(`/api/projects/${projectId}/environments/`, { method: 'POST', body: { name } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['settings', 'project-environments'] });
      void client.invalidateQueries({ queryKey: ['environments'] });
    },
  });
}

export function useRenameEnvironment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: number; name: string }) =>
      api<EnvironmentSettings>(`/api/environments/${id}/`, { method: 'PATCH', body: { name } }),
    onSuccess: (answer) => {
      client.setQueryData(environmentKey(answer.id), answer);
      void client.invalidateQueries({ queryKey: ['settings', 'project-environments'] });
      void client.invalidateQueries({ queryKey: ['environments'] });
    },
  });
}

/** DELETE of an environment: its events, people, flags and recordings go with it. */
export function useDeleteEnvironment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/api/environments/${id}/`, { method: 'DELETE' }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['settings', 'project-environments'] });
      void client.invalidateQueries({ queryKey: ['environments'] });
    },
  });
}

/** `PATCH /api/users/@me/`: names, e-mail, or the password with the current one. */
export function useUpdateMe() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (changes: Record<string, string>) => api('/api/users/@me/', { method: 'PATCH', body: changes }),
    onSuccess: (answer) => client.setQueryData(ME_KEY, answer),
  });
}

export interface PersonalApiKey {
  id: string;
  label: string;
  value: string | null;
  mask_value: string | null;
  created_at: string;
  last_used_at: string | null;
  last_rolled_at: string | null;
  scopes: string[];
  scoped_teams: number[] | null;
  scoped_organizations: string[] | null;
}

const KEYS = ['settings', 'personal-api-keys'] as const;

export function usePersonalApiKeys() {
  return useQuery({ queryKey: KEYS, queryFn: ({ signal }) => api<PersonalApiKey[]>('/api/personal_api_keys/', { signal }) });
}

export function useCreatePersonalApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { label: string; scopes: string[] }) =>
      api<PersonalApiKey>('/api/personal_api_keys/', {
        method: 'POST',
        body: { ...body, scoped_teams: [], scoped_organizations: [] },
      }),
    onSuccess: () => void client.invalidateQueries({ queryKey: KEYS }),
  });
}

export function useRollPersonalApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<PersonalApiKey>(`/api/personal_api_keys/${encodeURIComponent(id)}/roll/`, { method: 'POST' }),
    onSuccess: () => void client.invalidateQueries({ queryKey: KEYS }),
  });
}

export function useRevokePersonalApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/api/personal_api_keys/${encodeURIComponent(id)}/`, { method: 'DELETE' }),
    onSuccess: () => void client.invalidateQueries({ queryKey: KEYS }),
  });
}

export interface Member {
  id: string;
  level: number;
  joined_at: string;
  last_login: string | null;
  user: { id: number; uuid: string; email: string; first_name: string; last_name: string };
}

export interface Invite {
  id: string;
  target_email: string;
  first_name: string;
  level: number;
  is_expired: boolean;
  emailing_attempt_made: boolean;
  created_at: string;
  created_by: { email: string } | null;
}

/** PostHog's organization membership levels. */
export const LEVELS = { member: 1, admin: 8, owner: 15 } as const;
export const LEVEL_NAMES: Record<number, string> = { 1: 'Member', 8: 'Admin', 15: 'Owner' };

const MEMBERS = ['settings', 'members'] as const;
const INVITES = ['settings', 'invites'] as const;

export function useMembers() {
  return useQuery({
    queryKey: MEMBERS,
    queryFn: ({ signal }) => api<Paginated<Member>>('/api/organizations/@current/members/?limit=1000', { signal }),
  });
}

export function useUpdateMember() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ uuid, level }: { uuid: string; level: number }) =>
      api<Member>(`/api/organizations/@current/members/${encodeURIComponent(uuid)}/`, { method: 'PATCH', body: { level } }),
    onSuccess: () => void client.invalidateQueries({ queryKey: MEMBERS }),
  });
}

export function useRemoveMember() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (uuid: string) => api(`/api/organizations/@current/members/${encodeURIComponent(uuid)}/`, { method: 'DELETE' }),
    onSuccess: () => void client.invalidateQueries({ queryKey: MEMBERS }),
  });
}

export function useInvites() {
  return useQuery({
    queryKey: INVITES,
    queryFn: ({ signal }) => api<Paginated<Invite>>('/api/organizations/@current/invites/?limit=1000', { signal }),
  });
}

/** Up to 20 invites at once (`invites/bulk/`), checked together: one bad address saves none. */
export function useCreateInvites() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { target_email: string; first_name: string; level: number }[]) =>
      api<Invite[]>('/api/organizations/@current/invites/bulk/', { method: 'POST', body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: INVITES }),
  });
}

export function useCancelInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/api/organizations/@current/invites/${encodeURIComponent(id)}/`, { method: 'DELETE' }),
    onSuccess: () => void client.invalidateQueries({ queryKey: INVITES }),
  });
}

/** The link that accepts an invite (what PostHog's app shows: `<origin>/signup/<id>`). */
export const inviteLink = (id: string) => `${window.location.origin}/signup/${id}`;
