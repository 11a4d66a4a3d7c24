/**
 * The decide figure: /decide?v=3 against 50 flags of mixed kinds (rollout, person properties,
 * multivariate with payloads, cohort, group), with varying distinct ids and properties, beside a
 * bare fastify endpoint measured in the same run.
 */
import { IngestionWorker } from '../src/ingestion/worker/worker.js';
import { fmt, fmtMs, interleaved, load, OPEN_LOAD_CLIENT, spawnHoglet, spawnServer, type Child, type LoadResult } from './harness.js';
import { openWorkerStores } from './worker-stores.js';

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
    const { key: flagKey, filters } = mixedFlagFilters(i, cohort.id);
    await api(url, key, `/api/projects/${projectId}/feature_flags/`, { key: flagKey, filters });
  }
}

/** The key and filters of the bench's flag number `i` (0-49): kind by `i % 5`. */
export function mixedFlagFilters(i: number, cohortId: number): { key: string; filters: Record<string, unknown> } {
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
            ? { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortId }], rollout_percentage: 100 }] }
            : {
                aggregation_group_type_index: 0,
                groups: [
                  {
                    properties: [{ key: 'plan', type: 'group', group_type_index: 0, operator: 'exact', value: 'enterprise' }],
                    rollout_percentage: 100,
                  },
                ],
              };
  return { key: `bench-${kind}-${i}`, filters };
}

/**
 * Processes what the server on `dataDir` (SQLite, its worker off) has queued: the $groupidentify of
 * createMixedFlags, which creates the group type, so that the group flags really evaluate. As
 * `hoglet worker` would, reaching the server's embedded ClickHouse through it.
 */
export async function processQueued(dataDir: string): Promise<void> {
  const { log, database, analytics } = await openWorkerStores({ DATA_DIR: dataDir, DATABASE_URL: '' });
  try {
    const worker = new IngestionWorker(database, log, { analytics: analytics.engine });
    await worker.drain();
    await worker.stop();
  } finally {
    await database.close();
    await analytics.engine.close();
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

/** The issue 32 targets, each against bare fastify measured in the same run. */
export const DECIDE_TARGETS = {
  /** Saturated requests/s over bare's, one process and like for like with HTTP_PROCESSES = cores. */
  throughputRatio: 0.7,
  /** p99 at half of Hoglet's own saturated rate over bare's p99 at that rate. */
  p99RatioAtHalfRate: 1.5,
} as const;

export interface DecideFigures {
  decide: LoadResult;
  bareDecide: LoadResult;
  /** Half of what decide served at saturation, offered to both sides (independent arrivals). */
  rate: number;
  decideAtRate: LoadResult;
  bareDecideAtRate: LoadResult;
}

export interface ClusterDecideFigures {
  processes: number;
  decide: LoadResult;
  /** Bare fastify served from as many processes (node's cluster module). */
  bareDecide: LoadResult;
}

/** The bare endpoint's request: the same token, one small body. */
function loadBareDecide(bare: Child, token: string, connections: number, rate?: number) {
  return (seconds: number) =>
    load({
      url: `${bare.url}/decide/`,
      body: JSON.stringify({ api_key: token, distinct_id: 'bench-user-1' }),
      connections,
      seconds,
      serverPid: bare.child.pid,
      ...(rate ? { rate } : {}),
    });
}

/**
 * Decide saturated and at half that rate, each beside bare fastify in alternating slices
 * (harness.ts interleaved). The flags exist and the server is warmed up.
 */
export async function measureDecide(
  hoglet: Child,
  bare: Child,
  token: string,
  seconds: number,
  connections: number,
): Promise<DecideFigures> {
  const saturated = await interleaved(
    seconds,
    (s) => loadDecide(hoglet.url, token, connections, s, hoglet.child.pid),
    loadBareDecide(bare, token, connections),
  );
  // Latency apart from queueing: at saturation the connections wait connections / throughput
  // seconds on average whatever the server does (Little's law), so that p99 is mostly the
  // queue's. Offered half of what decide just served, both sides answer at once.
  const rate = Math.max(100, Math.round(saturated.measured.requestsPerSecond / 2));
  const atRate = await interleaved(
    seconds,
    (s) => loadDecide(hoglet.url, token, connections, s, hoglet.child.pid, rate),
    loadBareDecide(bare, token, connections, rate),
  );
  return {
    decide: saturated.measured,
    bareDecide: saturated.baseline,
    rate,
    decideAtRate: atRate.measured,
    bareDecideAtRate: atRate.baseline,
  };
}

/**
 * Decide with `processes` server processes (HTTP_PROCESSES) on the data dir of `env`, whose flags
 * exist already, beside bare fastify served from as many processes: the like-for-like baseline.
 */
export async function measureClusterDecide(
  env: Record<string, string>,
  token: string,
  processes: number,
  seconds: number,
  connections: number,
): Promise<ClusterDecideFigures> {
  const cluster = await spawnHoglet([], { ...env, HTTP_PROCESSES: String(processes) });
  try {
    const bare = await spawnServer('bench/bare-server.ts', {
      env: { BARE_PROCESSES: String(processes) },
      pattern: /listening (http:\/\/\S+)/,
    });
    try {
      await loadDecide(cluster.url, token, connections, 1, cluster.child.pid); // warm-up: each process reads its caches
      const figure = await interleaved(
        seconds,
        (s) => loadDecide(cluster.url, token, connections, s, cluster.child.pid),
        loadBareDecide(bare, token, connections),
      );
      return { processes, decide: figure.measured, bareDecide: figure.baseline };
    } finally {
      await bare.stop();
    }
  } finally {
    await cluster.stop();
  }
}

const INDENT = ''.padEnd(44);

function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}

/** The decide figures as `npm run bench` prints them, each ratio beside its target. */
export function decideText(figures: DecideFigures, cluster?: ClusterDecideFigures): string {
  const { decide, bareDecide, rate, decideAtRate, bareDecideAtRate } = figures;
  const ratio = decide.requestsPerSecond / bareDecide.requestsPerSecond;
  const p99Ratio = decideAtRate.p99 / bareDecideAtRate.p99;
  const lines = [
    `${'decide v3, 50 flags of mixed kinds'.padEnd(44)} ${fmt(decide.requestsPerSecond).padStart(10)} req/s      | bare fastify ${fmt(bareDecide.requestsPerSecond)} req/s | ratio ${ratio.toFixed(2)} | target >= ${DECIDE_TARGETS.throughputRatio}: ${verdict(ratio >= DECIDE_TARGETS.throughputRatio)}`,
    `${INDENT} p99 ${fmtMs(decide.p99)} ms (bare ${fmtMs(bareDecide.p99)} ms; at saturation mostly queueing), non-2xx ${decide.non2xx}`,
    `${INDENT} per server CPU second: ${fmt(decide.requestsPerCpuSecond)} (bare ${fmt(bareDecide.requestsPerCpuSecond)}), ratio ${(decide.requestsPerCpuSecond / bareDecide.requestsPerCpuSecond).toFixed(2)}`,
    `${INDENT} at ${fmt(rate)} req/s offered (half the above, independent arrivals from ${OPEN_LOAD_CLIENT}): ${fmt(decideAtRate.requestsPerSecond)} served, p50 ${fmtMs(decideAtRate.p50)} ms, p90 ${fmtMs(decideAtRate.p90)} ms, p99 ${fmtMs(decideAtRate.p99)} ms; bare at that rate p50 ${fmtMs(bareDecideAtRate.p50)} ms, p90 ${fmtMs(bareDecideAtRate.p90)} ms, p99 ${fmtMs(bareDecideAtRate.p99)} ms`,
    ...(decideAtRate.lateSendP99 !== undefined && bareDecideAtRate.lateSendP99 !== undefined
      ? [
          `${INDENT} h2load sent late after a request's time (not in its latency), p99: ${fmtMs(decideAtRate.lateSendP99)} ms (bare ${fmtMs(bareDecideAtRate.lateSendP99)} ms)`,
        ]
      : []),
    ...(decideAtRate.p99FromDue !== undefined && bareDecideAtRate.p99FromDue !== undefined
      ? [
          `${INDENT} p99 from the due time (the late send's wait counted): ${fmtMs(decideAtRate.p99FromDue)} ms (bare ${fmtMs(bareDecideAtRate.p99FromDue)} ms), ratio ${(decideAtRate.p99FromDue / bareDecideAtRate.p99FromDue).toFixed(2)}`,
        ]
      : []),
    `${INDENT} p99 at half rate over bare's ${p99Ratio.toFixed(2)} (p50 ${(decideAtRate.p50 / bareDecideAtRate.p50).toFixed(2)}, p90 ${(decideAtRate.p90 / bareDecideAtRate.p90).toFixed(2)}) | target <= ${DECIDE_TARGETS.p99RatioAtHalfRate}: ${verdict(p99Ratio <= DECIDE_TARGETS.p99RatioAtHalfRate)}`,
  ];
  if (cluster) {
    const like = cluster.decide.requestsPerSecond / cluster.bareDecide.requestsPerSecond;
    lines.push(
      `${`decide v3, HTTP_PROCESSES=${cluster.processes}`.padEnd(44)} ${fmt(cluster.decide.requestsPerSecond).padStart(10)} req/s      | bare fastify, ${cluster.processes} processes ${fmt(cluster.bareDecide.requestsPerSecond)} req/s | ratio ${like.toFixed(2)} | target >= ${DECIDE_TARGETS.throughputRatio}: ${verdict(like >= DECIDE_TARGETS.throughputRatio)}`,
      `${INDENT} p99 ${fmtMs(cluster.decide.p99)} ms (bare ${fmtMs(cluster.bareDecide.p99)} ms), non-2xx ${cluster.decide.non2xx}; per server CPU second: ${fmt(cluster.decide.requestsPerCpuSecond)} (bare ${fmt(cluster.bareDecide.requestsPerCpuSecond)})`,
      `${INDENT} over bare fastify in one process (this run's first figure): ${(cluster.decide.requestsPerSecond / bareDecide.requestsPerSecond).toFixed(2)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
