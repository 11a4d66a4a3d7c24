/**
 * The decide figure: /decide?v=3 against 50 flags of mixed kinds (rollout, person properties,
 * multivariate with payloads, cohort, group), with varying distinct ids and properties, beside a
 * bare fastify endpoint measured in the same run.
 */
import { load, type LoadResult } from './harness.js';

const KINDS = ['rollout', 'properties', 'multivariate', 'cohort', 'group'] as const;

async function api(url: string, key: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Creates the 50 flags (ten of each kind) through the API, as a user would. */
export async function createMixedFlags(url: string, key: string, projectId: number, token: string): Promise<void> {
  // Group flags need the group type to exist: one $groupidentify through capture creates it.
  await fetch(`${url}/capture/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      api_key: token,
      event: '$groupidentify',
      distinct_id: 'bench',
      properties: { $group_type: 'company', $group_key: 'acme', $group_set: { plan: 'enterprise' } },
    }),
  });
  const cohort = await api(url, key, `/api/projects/${projectId}/cohorts/`, {
    name: 'Bench cohort',
    filters: {
      properties: {
        type: 'OR',
        values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro', 'enterprise'] }] }],
      },
    },
  });
  for (let i = 0; i < 50; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const filters: Record<string, unknown> =
      kind === 'rollout'
        ? { groups: [{ properties: [], rollout_percentage: 10 + i }] }
        : kind === 'properties'
          ? {
              groups: [
                {
                  properties: [
                    { key: 'email', type: 'person', operator: 'icontains', value: 'example.com' },
                    { key: 'age', type: 'person', operator: 'gt', value: String(20 + i) },
                  ],
                  rollout_percentage: 100,
                },
              ],
            }
          : kind === 'multivariate'
            ? {
                groups: [{ properties: [], rollout_percentage: 80 }],
                multivariate: {
                  variants: [
                    { key: 'control', rollout_percentage: 50 },
                    { key: 'test', rollout_percentage: 50 },
                  ],
                },
                payloads: { control: '{"color":"blue"}', test: '{"color":"green"}' },
              }
            : kind === 'cohort'
              ? { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohort.id }], rollout_percentage: 100 }] }
              : {
                  aggregation_group_type_index: 0,
                  groups: [
                    {
                      properties: [{ key: 'plan', type: 'group', group_type_index: 0, operator: 'exact', value: 'enterprise' }],
                      rollout_percentage: 100,
                    },
                  ],
                };
    await api(url, key, `/api/projects/${projectId}/feature_flags/`, { key: `bench-${kind}-${i}`, filters });
  }
}

export function decideBodies(token: string): string[] {
  return Array.from({ length: 200 }, (_, i) =>
    JSON.stringify({
      api_key: token,
      distinct_id: `bench-user-${i}`,
      person_properties: { email: `user${i}@example.com`, age: 18 + (i % 60), plan: ['free', 'pro', 'enterprise'][i % 3] },
      groups: { company: 'acme' },
      group_properties: { company: { plan: 'enterprise' } },
    }),
  );
}

/**
 * Drives POST /decide/?v=3 with 200 rotating request bodies: as fast as the server answers, or
 * at `rate` requests per second in all (harness.ts LoadOptions.rate).
 */
export function loadDecide(
  url: string,
  token: string,
  connections: number,
  seconds: number,
  serverPid?: number,
  rate?: number,
): Promise<LoadResult> {
  return load({ url: `${url}/decide/?v=3`, bodies: decideBodies(token), connections, seconds, serverPid, ...(rate ? { rate } : {}) });
}
