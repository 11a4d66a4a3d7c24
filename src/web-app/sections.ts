/**
 * The web app's top-level paths, shared by the server (which answers them with the app's page,
 * src/web-app/routes.ts) and the app's router (web/src/routes.tsx, which imports this file). A page
 * in a new section is added here, so its links load the app instead of a JSON 404.
 */

/**
 * Sections of an environment, addressed as PostHog addresses them: `/project/<id>/<section>/…`, and
 * without the project (`/<section>/…`), which the app sends on to the current environment's.
 */
export const PROJECT_SECTIONS = [
  'get-started',
  'activity',
  'events',
  'persons',
  'person',
  'groups',
  'feature_flags',
  'surveys',
  'cohorts',
  'early_access_features',
  'replay',
  'settings',
  'insights',
  'dashboard',
  'web',
] as const;

/** Paths outside any environment: sign-in, setting a password from a link, accepting an invite. */
export const ACCOUNT_PATHS = ['login', 'reset', 'signup'] as const;

/** Every first path segment the app answers (besides `/` itself). */
export const APP_PATH_ROOTS: readonly string[] = ['project', ...ACCOUNT_PATHS, ...PROJECT_SECTIONS];
