import { Navigate, Outlet, useLocation } from 'react-router';
import { isSignedOut } from '../api/client';
import { useMe } from '../api/session';
import { ErrorNotice } from './ErrorNotice';
import { Loading } from '../components/Loading';

/** Renders its routes for a signed-in user; sends anyone else to the sign-in page, keeping the address. */
export function RequireSession() {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) {
    return <Loading h="100%" />;
  }
  if (me.isError) {
    if (isSignedOut(me.error.status, me.error.body)) {
      // The hash too: an unsaved insight's query travels in it (`#q=`).
      const next = location.pathname + location.search + location.hash;
      return <Navigate to={next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`} replace />;
    }
    return <ErrorNotice error={me.error} />;
  }
  return <Outlet />;
}
