import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, type Paginated } from './client';
import type { TeamBasic } from './types';

/** Every environment the user can see, with the projects' names (for the switcher). */
export const environmentsQuery = () =>
  queryOptions({
    queryKey: ['environments'],
    queryFn: async ({ signal }) => {
      const [environments, projects] = await Promise.all([
        api<Paginated<TeamBasic>>('/api/environments/?limit=1000', { signal }),
        api<Paginated<TeamBasic>>('/api/projects/?limit=1000', { signal }),
      ]);
      const projectNames = new Map(projects.results.map((p) => [p.id, p.name]));
      return environments.results.map((env) => ({ ...env, projectName: projectNames.get(env.project_id) ?? `Project ${env.project_id}` }));
    },
    staleTime: 30_000,
  });

export function useEnvironments() {
  return useQuery(environmentsQuery());
}

export type EnvironmentEntry = NonNullable<ReturnType<typeof useEnvironments>['data']>[number];
