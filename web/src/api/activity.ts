/** PostHog's activity log of one object (`…/:id/activity/`: flags, insights), a page at a time. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from './client';

export interface ActivityChange {
  field: string | null;
  before: unknown;
  after: unknown;
  action: string;
}

export interface ActivityEntry {
  id: string;
  user: { first_name: string; email: string | null; is_system?: boolean };
  activity: string;
  item_id: string;
  detail: { changes: ActivityChange[] | null; name: string | null };
  created_at: string;
}

export interface ActivityPage {
  results: ActivityEntry[];
  next: string | null;
  previous: string | null;
  total_count: number;
}

export const ACTIVITY_PAGE = 20;

/** One page of `path` (an `activity/` URL), cached under `queryKey` and the page number. */
export function useActivity(queryKey: readonly unknown[], path: string, page: number) {
  return useQuery({
    queryKey: [...queryKey, page],
    queryFn: ({ signal }) => api<ActivityPage>(`${path}?limit=${ACTIVITY_PAGE}&page=${page}`, { signal }),
    placeholderData: keepPreviousData,
  });
}
