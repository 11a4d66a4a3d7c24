import { lazy, Suspense } from 'react';
import { Navigate } from 'react-router';
import { usePrimaryDashboard } from '../api/dashboards';
import { Loading } from '../components/Loading';
import { useEnvironment } from '../shell/ProjectScope';

// The grid and its styles load only when the home page is a dashboard.
const DashboardView = lazy(() => import('./dashboards/DashboardPage').then((m) => ({ default: m.DashboardView })));

/**
 * `/project/<id>`: Get started before events arrive; then the environment's primary dashboard, as
 * PostHog's project home shows it, or Activity when it has none (or it was deleted).
 */
export function Component() {
  const environment = useEnvironment();
  const primary = usePrimaryDashboard(environment.id, environment.ingested_event);
  if (!environment.ingested_event) return <Navigate to="get-started" replace />;
  if (primary.isPending) return <Loading p="md" />;
  if (primary.data === null || primary.data === undefined) return <Navigate to="activity" replace />;
  return (
    <Suspense fallback={<Loading p="md" />}>
      <DashboardView dashboardId={primary.data} whenMissing={<Navigate to="activity" replace />} />
    </Suspense>
  );
}
