/**
 * The app's routes (react-router, library mode). Pages are loaded on first visit (`lazy`), so the
 * first page ships only the shell and its own code. A page module exports its component as
 * `Component` (web/README.md).
 *
 * URLs follow PostHog's: an environment's pages live under `/project/<id>/<section>/…`; the same
 * path without `/project/<id>` goes to the current environment's; `/project/<phc_ token>/…` (the
 * links posthog-js hands out) goes to that environment's.
 */
import { createBrowserRouter, type Params, type RouteObject } from 'react-router';
import { mayBeSignedIn, onSignedOut } from './api/client';
import { environmentsQuery } from './api/environments';
import { meQuery } from './api/session';
import { prefetchDashboard } from './pages/dashboards/tile-cache';
import { prefetchWebAnalytics } from './pages/web/tiles';
import { prefetch } from './query-client';
import { PROJECT_SECTIONS } from '../../src/web-app/sections';
import { AppLayout } from './shell/AppLayout';
import { CurrentEnvironmentRedirect, ProjectScope } from './shell/ProjectScope';
import { RequireSession } from './shell/RequireSession';
import { NotFound } from './shell/NotFound';
import { RouteError } from './shell/RouteError';

/**
 * The loaders start a navigation's requests all at once, as it begins: the session, the
 * environments and the page's own data, where each used to wait for the one before it to answer
 * and render. They wait for nothing and answer nothing: the components read the same queries and
 * show their loading and errors. Only ids in the address are asked for (a project API key there
 * is resolved by ProjectScope first).
 */
const isId = (value: string | undefined): value is string => value !== undefined && /^\d+$/.test(value);

function environmentOf(params: Params): number | undefined {
  return isId(params.projectId) ? Number(params.projectId) : undefined;
}

/** The pages of one environment, relative to `/project/:projectId`. */
const environmentPages: RouteObject[] = [
  { index: true, lazy: () => import('./pages/ProjectHome') },
  { path: 'get-started', lazy: () => import('./pages/get-started/GetStartedPage') },
  { path: 'activity', lazy: () => import('./pages/activity/ActivityPage') },
  { path: 'activity/explore', lazy: () => import('./pages/activity/ActivityPage') },
  { path: 'events', lazy: () => import('./pages/activity/ActivityPage') },
  { path: 'persons', lazy: () => import('./pages/persons/PersonsPage') },
  { path: 'person/:distinctId', lazy: () => import('./pages/persons/PersonPage') },
  { path: 'persons/:personId', lazy: () => import('./pages/persons/PersonByIdPage') },
  { path: 'groups', lazy: () => import('./pages/groups/GroupsIndexPage') },
  { path: 'groups/:groupTypeIndex', lazy: () => import('./pages/groups/GroupsPage') },
  { path: 'groups/:groupTypeIndex/:groupKey', lazy: () => import('./pages/groups/GroupPage') },
  { path: 'feature_flags', lazy: () => import('./pages/flags/FlagsPage') },
  { path: 'feature_flags/:flagId', lazy: () => import('./pages/flags/FlagPage') },
  { path: 'surveys', lazy: () => import('./pages/surveys/SurveysPage') },
  { path: 'surveys/new', lazy: () => import('./pages/surveys/SurveyEditPage') },
  { path: 'surveys/:surveyId', lazy: () => import('./pages/surveys/SurveyPage') },
  { path: 'surveys/:surveyId/edit', lazy: () => import('./pages/surveys/SurveyEditPage') },
  { path: 'cohorts', lazy: () => import('./pages/cohorts/CohortsPage') },
  { path: 'cohorts/:cohortId', lazy: () => import('./pages/cohorts/CohortPage') },
  { path: 'early_access_features', lazy: () => import('./pages/early_access_features/EarlyAccessFeaturesPage') },
  { path: 'early_access_features/:featureId', lazy: () => import('./pages/early_access_features/EarlyAccessFeaturePage') },
  { path: 'replay', lazy: () => import('./pages/replay/RecordingsPage') },
  { path: 'replay/home', lazy: () => import('./pages/replay/RecordingsPage') },
  { path: 'replay/:sessionId', lazy: () => import('./pages/replay/RecordingPage') },
  {
    path: 'web',
    loader: ({ params, request }) => {
      const environmentId = environmentOf(params);
      if (environmentId !== undefined && mayBeSignedIn()) prefetchWebAnalytics(environmentId, new URL(request.url).searchParams);
      return null;
    },
    lazy: () => import('./pages/web/WebAnalyticsPage'),
  },
  { path: 'settings', lazy: () => import('./pages/settings/SettingsPage') },
  { path: 'settings/:section', lazy: () => import('./pages/settings/SettingsPage') },
  { path: 'insights', lazy: () => import('./pages/insights/InsightsPage') },
  { path: 'insights/new', lazy: () => import('./pages/insights/InsightPage') },
  { path: 'insights/:shortId', lazy: () => import('./pages/insights/InsightPage') },
  // Subscriptions: `…/subscriptions/:id` are the links subscription e-mails carry (src/subscriptions/delivery/report.ts).
  { path: 'insights/:shortId/subscriptions', lazy: () => import('./pages/subscriptions/SubscriptionsPage') },
  { path: 'insights/:shortId/subscriptions/new', lazy: () => import('./pages/subscriptions/SubscriptionPage') },
  { path: 'insights/:shortId/subscriptions/:subscriptionId', lazy: () => import('./pages/subscriptions/SubscriptionPage') },
  { path: 'dashboard', lazy: () => import('./pages/dashboards/DashboardsPage') },
  {
    path: 'dashboard/:dashboardId',
    loader: ({ params }) => {
      const environmentId = environmentOf(params);
      if (environmentId !== undefined && isId(params.dashboardId) && mayBeSignedIn())
        prefetchDashboard(environmentId, Number(params.dashboardId));
      return null;
    },
    lazy: () => import('./pages/dashboards/DashboardPage'),
  },
  { path: 'dashboard/:dashboardId/subscriptions', lazy: () => import('./pages/subscriptions/SubscriptionsPage') },
  { path: 'dashboard/:dashboardId/subscriptions/new', lazy: () => import('./pages/subscriptions/SubscriptionPage') },
  { path: 'dashboard/:dashboardId/subscriptions/:subscriptionId', lazy: () => import('./pages/subscriptions/SubscriptionPage') },
  { path: '*', Component: NotFound },
];

/**
 * What shows while the first address's loaders and page code load: nothing, as before, but named,
 * so react-router does not warn in the console on every first load.
 */
const HydrateFallback = () => null;

const routes: RouteObject[] = [
  { path: '/login', lazy: () => import('./pages/login/LoginPage'), ErrorBoundary: RouteError, HydrateFallback },
  { path: '/reset/:uuid/:token', lazy: () => import('./pages/login/SetPasswordPage'), ErrorBoundary: RouteError, HydrateFallback },
  { path: '/signup/:inviteId', lazy: () => import('./pages/login/SignupPage'), ErrorBoundary: RouteError, HydrateFallback },
  {
    Component: RequireSession,
    ErrorBoundary: RouteError,
    HydrateFallback,
    loader: () => {
      prefetch(meQuery());
      return null;
    },
    children: [
      { path: '/', Component: CurrentEnvironmentRedirect },
      {
        path: '/project/:projectId',
        Component: ProjectScope,
        loader: () => {
          if (mayBeSignedIn()) prefetch(environmentsQuery());
          return null;
        },
        children: [{ Component: AppLayout, children: environmentPages }],
      },
      // `/activity`, `/persons/…`: the same page of the current environment.
      ...PROJECT_SECTIONS.map((section) => ({ path: `/${section}/*`, Component: CurrentEnvironmentRedirect })),
      { path: '*', Component: NotFound },
    ],
  },
];

export const router = createBrowserRouter(routes);

onSignedOut(() => {
  const { pathname, search, hash } = router.state.location;
  // Signing out navigates there already; its loaders may still run while the page's other
  // requests come back refused, and that page is no `next` to go back to.
  if (pathname === '/login' || router.state.navigation.location?.pathname === '/login') return;
  void router.navigate(`/login?next=${encodeURIComponent(pathname + search + hash)}`, { replace: true });
});
