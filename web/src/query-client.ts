/**
 * The app's one query cache, shared by the providers (main.tsx) and the routes' loaders
 * (routes.tsx), which start a page's requests as the navigation begins.
 */
import { QueryClient, type FetchQueryOptions, type QueryKey } from '@tanstack/react-query';
import { ApiError } from './api/client';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a network blip or a 503 may.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

/**
 * How long an answer started at navigation stays fresh: the page's hooks mount after the session,
 * the environments and the page's code have loaded, often after the answer; stale by then, it
 * would be asked for a second time.
 */
export const PREFETCHED_FRESH_MS = 30_000;

/**
 * Starts a query the page about to render will ask for, unless the cache holds its answer: the
 * page's hook finds it in flight (or answered) instead of asking only once the session, the
 * environment and the page itself have rendered. Failures stay in the cache for the hook to show.
 */
export function prefetch<TQueryFnData, TError, TData, TQueryKey extends QueryKey>(
  options: FetchQueryOptions<TQueryFnData, TError, TData, TQueryKey>,
): void {
  if (queryClient.getQueryData(options.queryKey) !== undefined) return;
  void queryClient.prefetchQuery(options);
}
