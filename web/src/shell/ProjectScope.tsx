import { createContext, useContext } from 'react';
import { Navigate, Outlet, useLocation, useParams } from 'react-router';
import { useEnvironments, type EnvironmentEntry } from '../api/environments';
import { useMe } from '../api/session';
import { ErrorNotice } from './ErrorNotice';
import { NotFound } from './NotFound';
import { Loading } from '../components/Loading';

const EnvironmentContext = createContext<EnvironmentEntry | undefined>(undefined);

/** The environment of the page (`/project/:projectId/…`). Only inside ProjectScope. */
export function useEnvironment(): EnvironmentEntry {
  const environment = useContext(EnvironmentContext);
  if (!environment) throw new Error('useEnvironment is used outside /project/:projectId');
  return environment;
}

/**
 * `/project/:projectId/…`: finds the environment (by id, or by project API key, as in the links
 * posthog-js makes) and gives it to the routes below (AppLayout and the page, routes.tsx).
 */
export function ProjectScope() {
  const { projectId = '' } = useParams();
  const location = useLocation();
  const environments = useEnvironments();
  if (environments.isPending) return <Loading h="100%" />;
  if (environments.isError) return <ErrorNotice error={environments.error} />;
  const byToken = environments.data.find((e) => e.api_token === projectId);
  if (byToken) {
    const rest = location.pathname.slice(`/project/${projectId}`.length);
    return <Navigate to={`/project/${byToken.id}${rest}${location.search}${location.hash}`} replace />;
  }
  const environment = environments.data.find((e) => String(e.id) === projectId);
  if (!environment) return <NotFound />;
  return (
    <EnvironmentContext.Provider value={environment}>
      <Outlet />
    </EnvironmentContext.Provider>
  );
}

/** `/` and `/<section>/…`: the same path in the user's current environment (or the first one they see). */
export function CurrentEnvironmentRedirect() {
  const me = useMe();
  const environments = useEnvironments();
  const location = useLocation();
  if (environments.isPending) return <Loading h="100%" />;
  if (environments.isError) return <ErrorNotice error={environments.error} />;
  const current = environments.data.find((e) => e.id === me.data?.team?.id) ?? environments.data[0];
  if (!current) return <ErrorNotice title="No environment" error="You are not a member of any project yet." />;
  return (
    <Navigate
      to={`/project/${current.id}${location.pathname === '/' ? '' : location.pathname}${location.search}${location.hash}`}
      replace
    />
  );
}
