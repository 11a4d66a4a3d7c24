import type { ApiRouteAccess } from './route-registry.js';

/**
 * PostHog serves environment-scoped resources under both `/api/projects/:id/…` (the id names a
 * project, meaning its primary environment) and `/api/environments/:id/…`. Features register
 * each route once per base with the matching access rule.
 */
export const TEAM_ROUTE_BASES = [
  { base: '/projects/:project_id', from: 'project' },
  { base: '/environments/:project_id', from: 'environment' },
] as const;

export type TeamRouteBase = (typeof TEAM_ROUTE_BASES)[number];

export function teamAccess(scope: string | readonly string[], base: TeamRouteBase): { access: ApiRouteAccess } {
  return { access: { scope, team: { from: base.from, param: 'project_id' } } };
}
