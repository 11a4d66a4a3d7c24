import { useRouteError } from 'react-router';
import { ErrorNotice } from './ErrorNotice';

/** What a route shows when its page fails to load or render. */
export function RouteError() {
  return <ErrorNotice error={useRouteError()} />;
}
