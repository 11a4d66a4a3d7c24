import { Navigate } from 'react-router';
import { useEnvironment } from '../shell/ProjectScope';

/** `/project/<id>`: Activity once events arrive, Get started before. */
export function Component() {
  const environment = useEnvironment();
  return <Navigate to={environment.ingested_event ? 'activity' : 'get-started'} replace />;
}
