import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { MATERIALIZED_PROPERTIES, VITALS_COLUMNS } from './analytics-columns.js';
import { backfillSessions, propertyNumber, sessionsStatements, upgradeSessions, type ProgressLog } from './sessions-table.js';

/** The vitals columns' definitions; only `$web_vitals` events parse their JSON for them (`if` evaluates the branch it takes). */
function vitalsColumns(): string[] {
  return Object.entries(VITALS_COLUMNS).map(
    ([metric, column]) =>
      `${column} Nullable(Float64) MATERIALIZED if(event = '$web_vitals', ${propertyNumber(`$web_vitals_${metric}_value`)}, NULL)`,
  );
}

export interface AnalyticsSchemaOptions {
  /** A ClickHouse cluster's name: tables are created on every node, replicated. */
  cluster?: string | undefined;
  /** Where a backfill at start reports its progress. */
  log?: ProgressLog | undefined;
}

/** ClickHouse keeps this many recent insert tokens per table (worker batches; only the last few can be repeated). */
const DEDUPLICATION_WINDOW = 1000;

function onClusterOf(options: AnalyticsSchemaOptions): string {
  return options.cluster ? ` ON CLUSTER \`${options.cluster.replace(/`/g, '')}\`` : '';
}

function statements(engine: AnalyticsEngine, options: AnalyticsSchemaOptions): string[] {
  const onCluster = onClusterOf(options);
  const engineOf = (family: string, name: string, args = '') =>
    options.cluster
      ? `Replicated${family}('/clickhouse/tables/{shard}/${engine.database}/${name}', '{replica}'${args ? `, ${args}` : ''})`
      : `${family}(${args})`;
  // The same JSONExtract in every column: ClickHouse computes it once a row, one parse of the
  // properties for all of them (each its own JSONExtract parsed them once a column).
  const allAtOnce = `JSONExtract(properties, 'Tuple(${Object.keys(MATERIALIZED_PROPERTIES)
    .map((key) => `\`${key}\` Nullable(String)`)
    .join(', ')})')`;
  const materialized = Object.entries(MATERIALIZED_PROPERTIES)
    .map(([key, column]) => `${column} Nullable(String) MATERIALIZED tupleElement(${allAtOnce}, '${key}')`)
    .join(',\n      ');
  return [
    // Ordered by environment, event and day: a chart reads its events' range only. Partitioned by
    // month, so old months can be dropped or moved whole.
    `CREATE TABLE IF NOT EXISTS ${engine.table('events')}${onCluster} (
      team_id Int64,
      uuid UUID,
      event LowCardinality(String),
      distinct_id String,
      person_id UUID,
      properties String CODEC(ZSTD(3)),
      timestamp DateTime64(6, 'UTC'),
      created_at DateTime64(6, 'UTC'),
      session_id String,
      elements_chain String CODEC(ZSTD(3)),
      ${materialized},
      ${vitalsColumns().join(',\n      ')},
      INDEX uuid_index uuid TYPE bloom_filter(0.001) GRANULARITY 1,
      INDEX distinct_id_index distinct_id TYPE bloom_filter(0.01) GRANULARITY 1,
      INDEX session_id_index session_id TYPE bloom_filter(0.01) GRANULARITY 1
    ) ENGINE = ${engineOf('MergeTree', 'events')}
    PARTITION BY toYYYYMM(timestamp)
    ORDER BY (team_id, event, toDate(timestamp), cityHash64(distinct_id), uuid)
    SETTINGS ${options.cluster ? '' : `non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}, `}index_granularity = 8192`,
    // Tables made before a column was added get it here; their old parts compute it when read.
    ...vitalsColumns().map((column) => `ALTER TABLE ${engine.table('events')}${onCluster} ADD COLUMN IF NOT EXISTS ${column}`),
    // Person merges: events keep the person they were stored with; queries count them as the
    // person it was merged into (the newest version of a row wins).
    `CREATE TABLE IF NOT EXISTS ${engine.table('person_overrides')}${onCluster} (
      team_id Int64,
      old_person_id UUID,
      override_person_id UUID,
      version Int64
    ) ENGINE = ${engineOf('ReplacingMergeTree', 'person_overrides', 'version')}
    ORDER BY (team_id, old_person_id)
    SETTINGS ${options.cluster ? '' : `non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}, `}index_granularity = 8192`,
    ...sessionsStatements(engine, onCluster, engineOf),
  ];
}

/** Creates what is missing; safe on every start and from several processes at once. */
export async function ensureAnalyticsSchema(engine: AnalyticsEngine, options: AnalyticsSchemaOptions = {}): Promise<void> {
  for (const statement of statements(engine, options)) await engine.command(statement);
  await upgradeSessions(engine, onClusterOf(options));
  await backfillSessions(engine, onClusterOf(options), options.log);
}
