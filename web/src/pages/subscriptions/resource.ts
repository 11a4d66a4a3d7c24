/**
 * The insight or dashboard the subscription pages are of, from the URL: `insights/:shortId/…`
 * (the insight found by its short id) or `dashboard/:dashboardId/…`.
 */
import { useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useDashboardRef, useInsightByShortId, type SubscribedResource } from '../../api/subscriptions';
import { useEnvironment } from '../../shell/ProjectScope';

export interface ResourceInfo {
  kind: 'insight' | 'dashboard';
  /** The filter and body field subscriptions of it use. */
  resource: SubscribedResource;
  name: string;
  deleted: boolean;
  /** The insight's or dashboard's page. */
  pagePath: string;
  /** Its subscriptions' list; a subscription's page is `${listPath}/${id}`. */
  listPath: string;
}

export type ResourceState =
  { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'missing' } | ({ status: 'ok' } & ResourceInfo);

export function useSubscribedResource(): ResourceState {
  const { shortId, dashboardId } = useParams();
  const environment = useEnvironment();
  const project = `/project/${environment.id}`;
  const dashboardNumber = dashboardId !== undefined && /^\d{1,15}$/.test(dashboardId) ? Number(dashboardId) : undefined;
  const insight = useInsightByShortId(environment.id, shortId);
  const dashboard = useDashboardRef(environment.id, dashboardNumber);

  if (shortId !== undefined) {
    if (insight.isPending) return { status: 'loading' };
    if (insight.isError) return { status: 'error', error: insight.error };
    if (!insight.data) return { status: 'missing' };
    const pagePath = `${project}/insights/${encodeURIComponent(shortId)}`;
    return {
      status: 'ok',
      kind: 'insight',
      resource: { insight: insight.data.id },
      name: insight.data.name?.trim() || 'Untitled insight',
      deleted: insight.data.deleted,
      pagePath,
      listPath: `${pagePath}/subscriptions`,
    };
  }
  if (dashboardNumber === undefined) return { status: 'missing' };
  if (dashboard.isPending) return { status: 'loading' };
  if (dashboard.isError) {
    return dashboard.error instanceof ApiError && dashboard.error.status === 404
      ? { status: 'missing' }
      : { status: 'error', error: dashboard.error };
  }
  const pagePath = `${project}/dashboard/${dashboardNumber}`;
  return {
    status: 'ok',
    kind: 'dashboard',
    resource: { dashboard: dashboardNumber },
    name: dashboard.data.name?.trim() || 'Untitled dashboard',
    deleted: dashboard.data.deleted,
    pagePath,
    listPath: `${pagePath}/subscriptions`,
  };
}
