import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from './client';
import type { Me } from './types';

export const ME_KEY = ['users', '@me'] as const;

/** The signed-in user (GET /api/users/@me/); `undefined` data with an ApiError when signed out. */
export const meQuery = () =>
  queryOptions<Me, ApiError>({
    queryKey: ME_KEY,
    queryFn: ({ signal }) => api<Me>('/api/users/@me/', { signal, allowUnauthenticated: true }),
    retry: false,
    staleTime: 60_000,
  });

export function useMe() {
  return useQuery(meQuery());
}

export async function signIn(email: string, password: string): Promise<void> {
  await api('/api/login/', { method: 'POST', body: { email, password }, allowUnauthenticated: true });
}

export async function signOut(): Promise<void> {
  await api('/api/logout/', { method: 'POST', allowUnauthenticated: true });
}

/** Forgets everything cached for the old session. */
export function useResetSession() {
  const client = useQueryClient();
  return () => client.clear();
}
