/**
 * The flag engine alone on bench/decide.ts's 50 flags, for working on evaluation:
 * `npm run build && node --heap-growing-percent=50 --max-semi-space-size=8 dist/bench/decide-engine.js`.
 * The same definitions as the decide figure (rollout, person properties, multivariate with
 * payloads, cohort, group; ten of each) compiled once, evaluated in a loop against the 200
 * request contexts of decideBodies; prints microseconds of CPU per evaluation for each round
 * (BENCH_REQUESTS evaluations a round, BENCH_ROUNDS rounds). No HTTP, no decoding, no answer:
 * compare with bench/decide-handler.ts to see where a change lands.
 */
import { compileDefinitions, evaluateFlags, type EvaluationContext, type FlagDefinitions } from '../src/flags/engine/index.js';
import { decideBodies, mixedFlagFilters } from './decide.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const definitions: FlagDefinitions = {
  flags: Array.from({ length: 50 }, (_, i) => {
    const { key, filters } = mixedFlagFilters(i, 1);
    return { id: i + 1, key, version: 1, active: true, deleted: false, filters };
  }),
  group_type_mapping: Object.freeze({ '0': 'company' }),
  cohorts: {
    '1': {
      type: 'OR',
      values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro', 'enterprise'] }] }],
    },
  },
  static_cohort_ids: [],
};
const compiled = compileDefinitions(definitions);
// The context as src/sdk/flags/evaluate-request.ts makes it from a decide body.
const contexts: EvaluationContext[] = decideBodies('phc_bench').map((text) => {
  const body = JSON.parse(text) as Record<string, any>;
  return {
    distinct_id: body.distinct_id,
    person_properties: { ...body.person_properties },
    groups: body.groups,
    group_properties: { ...body.group_properties },
    anon_distinct_id: null,
    hash_key_overrides: {},
    device_id: null,
    staticCohortIds: [],
    timezone: 'UTC',
  };
});
let enabled = 0;
for (let round = 1; round <= ROUNDS; round++) {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let n = 0; n < REQUESTS; n++) {
    const evaluation = evaluateFlags(compiled, contexts[n % contexts.length]!, { groupTypeMapping: definitions.group_type_mapping });
    if (evaluation.results[n % 50]!.enabled) enabled++;
  }
  const wall = Number(process.hrtime.bigint() - started) / 1000 / REQUESTS;
  const used = process.cpuUsage(cpu);
  process.stdout.write(
    `round ${round}: ${((used.user + used.system) / REQUESTS).toFixed(2)} µs of CPU per evaluation of 50 flags (${wall.toFixed(2)} µs wall)\n`,
  );
}
if (enabled === 0) throw new Error('nothing enabled');
