/**
 * Subscriptions: PostHog's `/api/environments/:id/subscriptions/` (an insight or a dashboard sent
 * by e-mail, to Slack or to a webhook on a schedule), Hoglet's `:id/deliveries/` (every delivery
 * with its attempts) and `:id/test-delivery/` (one delivery now, answered once it is done), and the
 * insight or dashboard a subscription belongs to.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Paginated } from './client';

export type TargetType = 'email' | 'slack' | 'webhook';
export type Frequency = 'daily' | 'weekly' | 'monthly' | 'yearly';
/** Index 0 = Monday, as the server's (rrule's) order. */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface Subscription {
  id: number;
  dashboard: number | null;
  insight: number | null;
  target_type: TargetType;
  target_value: string;
  frequency: Frequency;
  interval: number;
  byweekday: Weekday[] | null;
  bysetpos: number | null;
  count: number | null;
  start_date: string;
  until_date: string | null;
  created_at: string;
  created_by: { id: number; email: string; first_name: string } | null;
  deleted: boolean;
  title: string | null;
  /** The schedule in words, as PostHog words it ("sent every week on the first Monday"). */
  summary: string;
  next_delivery_date: string | null;
}

export type SubscriptionWrite = Partial<
  Pick<
    Subscription,
    | 'dashboard'
    | 'insight'
    | 'target_type'
    | 'target_value'
    | 'frequency'
    | 'interval'
    | 'byweekday'
    | 'bysetpos'
    | 'start_date'
    | 'until_date'
    | 'title'
    | 'deleted'
  >
>;

export interface DeliveryAttempt {
  attempt: number;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface Delivery {
  id: number;
  subscription: number;
  /** `scheduled`, `target_change` (the invite new recipients get) or `manual` (a test). */
  trigger_type: string;
  is_test: boolean;
  scheduled_at: string | null;
  skipped_occurrences: number;
  target_type: string | null;
  /** URLs masked by the server. */
  target_value: string | null;
  webhook_url: string | null;
  status: 'pending' | 'retrying' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
  attempt: number;
  error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  attempts: DeliveryAttempt[];
}

/** What a subscription is of: an insight or a dashboard. */
export type SubscribedResource = { insight: number } | { dashboard: number };

const subscriptionsPath = (environmentId: number) => `/api/environments/${environmentId}/subscriptions/`;

export function useSubscriptions(environmentId: number, resource: SubscribedResource | undefined) {
  const query = new URLSearchParams({ limit: '200' });
  if (resource && 'insight' in resource) query.set('insight', String(resource.insight));
  if (resource && 'dashboard' in resource) query.set('dashboard', String(resource.dashboard));
  return useQuery({
    queryKey: ['subscriptions', environmentId, 'list', query.toString()],
    queryFn: ({ signal }) => api<Paginated<Subscription>>(`${subscriptionsPath(environmentId)}?${query}`, { signal }),
    enabled: resource !== undefined,
  });
}

export function useSubscription(environmentId: number, id: number | undefined) {
  return useQuery({
    queryKey: ['subscriptions', environmentId, 'one', id],
    queryFn: ({ signal }) => api<Subscription>(`${subscriptionsPath(environmentId)}${id}/`, { signal }),
    enabled: id !== undefined,
  });
}

export function useSaveSubscription(environmentId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: SubscriptionWrite }) =>
      api<Subscription>(id === undefined ? subscriptionsPath(environmentId) : `${subscriptionsPath(environmentId)}${id}/`, {
        method: id === undefined ? 'POST' : 'PATCH',
        body,
      }),
    onSuccess: (subscription) => {
      client.setQueryData(['subscriptions', environmentId, 'one', subscription.id], subscription);
      // Not the whole area: the insight and dashboard it belongs to are unchanged (and costly to ask).
      void client.invalidateQueries({ queryKey: ['subscriptions', environmentId, 'list'] });
    },
  });
}

export const DELIVERIES_PAGE = 20;

export function useDeliveries(environmentId: number, id: number, offset: number) {
  return useQuery({
    queryKey: ['subscriptions', environmentId, 'deliveries', id, offset],
    queryFn: ({ signal }) =>
      api<Paginated<Delivery>>(`${subscriptionsPath(environmentId)}${id}/deliveries/?limit=${DELIVERIES_PAGE}&offset=${offset}`, {
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

/** Sends the subscription once, now; the answer is the delivery, finished. */
export function useTestDelivery(environmentId: number, id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api<Delivery>(`${subscriptionsPath(environmentId)}${id}/test-delivery/`, { method: 'POST' }),
    onSettled: () => client.invalidateQueries({ queryKey: ['subscriptions', environmentId, 'deliveries', id] }),
  });
}

/** The few fields of an insight the subscription pages show. */
export interface InsightRef {
  id: number;
  short_id: string;
  name: string | null;
  deleted: boolean;
}

export interface DashboardRef {
  id: number;
  name: string | null;
  deleted: boolean;
}

/** An insight by its short id (PostHog's `short_id` filter), null when there is none. */
export function useInsightByShortId(environmentId: number, shortId: string | undefined) {
  return useQuery({
    queryKey: ['subscriptions', environmentId, 'insight-by-short-id', shortId],
    queryFn: async ({ signal }) => {
      const page = await api<Paginated<InsightRef>>(
        `/api/environments/${environmentId}/insights/?short_id=${encodeURIComponent(shortId ?? '')}&limit=1`,
        { signal },
      );
      return page.results[0] ?? null;
    },
    enabled: shortId !== undefined,
  });
}

export function useInsightById(environmentId: number, id: number | undefined) {
  return useQuery({
    queryKey: ['subscriptions', environmentId, 'insight', id],
    queryFn: ({ signal }) => api<InsightRef>(`/api/environments/${environmentId}/insights/${id}/`, { signal }),
    enabled: id !== undefined,
  });
}

export function useDashboardRef(environmentId: number, id: number | undefined) {
  return useQuery({
    queryKey: ['subscriptions', environmentId, 'dashboard', id],
    queryFn: ({ signal }) => api<DashboardRef>(`/api/environments/${environmentId}/dashboards/${id}/`, { signal }),
    enabled: id !== undefined,
  });
}
