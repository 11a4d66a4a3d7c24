/**
 * Web analytics in ClickHouse: pageviews of the environment (`events`) joined with their sessions
 * (`sessions`, one row per session kept at ingestion), as PostHog's web analytics runners read
 * them. A session belongs to the period its start falls in (PostHog's rule), so the overview and
 * the tables agree; pageviews without a session are not counted. Filters are event property
 * filters on the pageviews (and on `$web_vitals` events for vitals).
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { compileClickHouseCondition } from '../posthog/clickhouse-property-conditions.js';
import { readPropertyCondition } from '../posthog/property-conditions.js';
import { materializedColumn, personIdExpression, personOverridesJoin, VITALS_COLUMNS } from '../events/analytics-columns.js';
import { channelPropertiesTuple, sessionIsBounce } from '../events/sessions-table.js';
import { channelTypeReadsUrl, channelTypeSql } from '../posthog/channel-type-sql.js';
import type { CustomChannelRule } from '../posthog/channel-type.js';
import type { PropertyFilterInput } from '../insights/properties.js';
import {
  VITALS_PERCENTILES,
  type OverviewCounts,
  type PathValue,
  type Period,
  type VitalsMetric,
  type VitalsPercentile,
} from './core/index.js';
import type { Breakdown } from './query.js';

const SOURCE = { column: 'e.properties', columnOf: materializedColumn };

function filtersCondition(filters: readonly PropertyFilterInput[]): ChSql {
  const conditions = filters
    .map((f) => compileClickHouseCondition(readPropertyCondition(f, 'web analytics'), SOURCE))
    .filter((c): c is ChSql => c !== null);
  return conditions.length === 0 ? raw('1') : ch`(${join(conditions, ' AND ')})`;
}

interface Window {
  /** The current period; `previous` null when not compared. */
  current: Period;
  previous: Period | null;
}

/** Session columns a breakdown or the overview needs, beyond start, duration and bounce. */
type SessionColumn = 'entry_pathname' | 'entry_referring_domain' | 'channel_type';

/**
 * Per session column: the merged inputs (inner) and the column read from them (outer); only those
 * asked are merged. The channel type is PostHog's with the team's custom rules (posthog/channel-type-sql.ts).
 */
function sessionColumn(
  column: SessionColumn,
  channelRules: readonly CustomChannelRule[],
): { inputs: Record<string, string>; column: ChSql } {
  switch (column) {
    case 'entry_pathname':
      return { inputs: { entry_pathname: 'argMinMerge(entry_pathname)' }, column: raw('entry_pathname') };
    case 'entry_referring_domain':
      return { inputs: { domain: 'argMinMerge(entry_referring_domain)' }, column: raw('domain AS entry_referring_domain') };
    case 'channel_type': {
      // PostHog's raw_sessions v3: the built-in rules' inputs are one state, all from the session's
      // first event (pageviews first), packed in one string. It is decoded here, after the merge and
      // HAVING, once per session: ClickHouse computes the identical JSONExtract once for all seven.
      const readsUrl = channelTypeReadsUrl(channelRules);
      const inputs = {
        channel_properties: 'argMinMerge(entry_channel_type_properties)',
        ...(readsUrl ? { entry_url: 'argMinMerge(entry_url)' } : {}),
      };
      const field = (n: number) => `tupleElement(${channelPropertiesTuple('channel_properties')}, ${n})`;
      const columns = {
        utm_source: field(1),
        utm_medium: field(2),
        utm_campaign: field(3),
        referring_domain: field(4),
        has_gclid: field(5),
        has_fbclid: field(6),
        gad_source: field(7),
        url: readsUrl ? 'entry_url' : 'NULL',
      };
      return { inputs, column: ch`${channelTypeSql(columns, channelRules)} AS channel_type` };
    }
  }
}

/**
 * The window's pageviews, each with its session's start, duration, bounce and the session
 * `columns` asked: `cur` and `prev` tell the period its session started in.
 */
function pageviews(
  engine: AnalyticsEngine,
  teamId: number,
  window: Window,
  filters: readonly PropertyFilterInput[],
  eventColumns: readonly string[],
  columns: readonly SessionColumn[] = [],
  channelRules: readonly CustomChannelRule[] = [],
): ChSql {
  const asked = columns.map((c) => sessionColumn(c, channelRules));
  const start = window.previous?.from ?? window.current.from;
  const inPeriod = (p: Period | null, name: string) =>
    p === null ? raw(`0 AS ${name}`) : ch`(s.start >= ${chTime(p.from)} AND s.start < ${chTime(p.to)}) AS ${raw(name)}`;
  const inputs = Object.entries(Object.assign({}, ...asked.map((c) => c.inputs)) as Record<string, string>)
    .map(([alias, expression]) => `, ${expression} AS ${alias}`)
    .join('');
  const middle = join(
    asked.map((c) => ch`, ${c.column}`),
    '',
  );
  const extraOut = columns.map((c) => `, s.${c} AS ${c}`).join('');
  const event = eventColumns.map((c) => `, e.${c} AS ${c}`).join('');
  const eventIn = eventColumns.map((c) => `, e.mat_${EVENT_COLUMNS[c]} AS ${c}`).join('');
  const eventFilter = ch`e.team_id = ${teamId} AND e.event = '$pageview' AND e.session_id != ''
        AND e.timestamp >= ${chTime(start)} AND e.timestamp < ${chTime(window.current.to)}
        AND ${filtersCondition(filters)}`;
  // With filters, only the sessions of the pageviews kept are merged (a second read of the events,
  // worth it when few match). Without, merging every session of the window cost less than that
  // read: at a million events, 230 ms of CPU for a table against 490 (the join keeps the same rows).
  const onlyFiltered =
    filters.length === 0
      ? raw('')
      : ch`AND session_id IN (SELECT e.session_id FROM ${raw(engine.table('events'))} AS e WHERE ${eventFilter})`;
  return ch`
    SELECT e.session_id AS session_id, e.person AS person${raw(event)}, s.duration AS duration, s.is_bounce AS is_bounce${raw(extraOut)},
      ${inPeriod(window.current, 'cur')}, ${inPeriod(window.previous, 'prev')}
    FROM (
      SELECT e.session_id AS session_id, ${raw(personIdExpression())} AS person${raw(eventIn)}
      FROM ${raw(engine.table('events'))} AS e
      ${raw(personOverridesJoin(engine, String(teamId)))}
      WHERE ${eventFilter}
    ) AS e
    INNER JOIN (
      SELECT session_id, start, duration, is_bounce${middle}
      FROM (
        SELECT session_id, min(min_timestamp) AS start, dateDiff('second', start, max(max_timestamp)) AS duration,
          ${raw(sessionIsBounce('duration'))} AS is_bounce
          ${raw(inputs)}
        FROM ${raw(engine.table('sessions'))}
        -- Every partial row of a session that starts in the window ends after the window's start:
        -- older sessions are skipped before merging (rows ending later are all kept, so none is cut short).
        WHERE team_id = ${teamId} AND max_timestamp >= ${chTime(start)} ${onlyFiltered}
        GROUP BY session_id
        HAVING start >= ${chTime(start)} AND start < ${chTime(window.current.to)}
      )
    ) AS s ON s.session_id = e.session_id`;
}

/**
 * The sessions table is sorted by (team_id, session_id), so merging its partial rows by session can
 * stream in that order instead of through a hash table: at a million events the tables' pass and
 * the overview each spend ~100 ms less CPU (docs/benchmarks.md). The answers are the same.
 */
const SESSIONS_IN_ORDER = 'optimize_aggregation_in_order = 1';

/** Event breakdown columns → their materialized column (without `mat_`). */
const EVENT_COLUMNS: Record<string, string> = {
  pathname: 'pathname',
  country: 'geoip_country_code',
  browser: 'browser',
  device_type: 'device_type',
  os: 'os',
};

type Row = Record<string, number | string | null>;

/** Visitors, views, sessions, average duration and bounce rate, per period. */
export async function webOverview(
  engine: AnalyticsEngine,
  teamId: number,
  window: Window,
  filters: readonly PropertyFilterInput[],
): Promise<{ current: OverviewCounts; previous: OverviewCounts | null }> {
  const period = (flag: string) =>
    raw(`uniqIf(person, ${flag}) AS ${flag}_visitors, sumIf(views, ${flag}) AS ${flag}_views, countIf(${flag}) AS ${flag}_sessions,
      avgIf(duration, ${flag}) AS ${flag}_duration, avgIf(is_bounce, ${flag}) AS ${flag}_bounce`);
  const { sql, params } = ch`
    SELECT ${period('cur')}, ${period('prev')}
    FROM (
      SELECT session_id, any(person) AS person, count() AS views, any(duration) AS duration, any(is_bounce) AS is_bounce,
        any(cur) AS cur, any(prev) AS prev
      FROM (${pageviews(engine, teamId, window, filters, [])})
      GROUP BY session_id
    )
    SETTINGS ${raw(SESSIONS_IN_ORDER)}`.compile();
  const [row = {}] = await engine.query<Row>(sql, params);
  const read = (flag: string): OverviewCounts => {
    const sessions = Number(row[`${flag}_sessions`] ?? 0);
    return {
      visitors: Number(row[`${flag}_visitors`] ?? 0),
      views: Number(row[`${flag}_views`] ?? 0),
      sessions,
      duration: sessions === 0 ? null : finite(row[`${flag}_duration`]),
      bounceRate: sessions === 0 ? null : finite(row[`${flag}_bounce`]),
    };
  };
  return { current: read('cur'), previous: window.previous === null ? null : read('prev') };
}

export interface StatsRow {
  value: string | null;
  visitors: number;
  views: number;
  previousVisitors: number;
  previousViews: number;
}

const BREAKDOWN_COLUMNS: Record<Breakdown, { event: string } | { session: SessionColumn }> = {
  Page: { event: 'pathname' },
  InitialPage: { session: 'entry_pathname' },
  InitialReferringDomain: { session: 'entry_referring_domain' },
  InitialChannelType: { session: 'channel_type' },
  Country: { event: 'country' },
  Browser: { event: 'browser' },
  DeviceType: { event: 'device_type' },
  OS: { event: 'os' },
};

/** Visitors and views per breakdown value, the most visitors first; values seen in the current period only. */
export async function webStatsTable(
  engine: AnalyticsEngine,
  teamId: number,
  window: Window,
  filters: readonly PropertyFilterInput[],
  breakdown: Breakdown,
  limit: number,
  channelRules: readonly CustomChannelRule[] = [],
): Promise<StatsRow[]> {
  return (await webStatsTables(engine, teamId, window, filters, [breakdown], limit, channelRules)).get(breakdown) ?? [];
}

/**
 * Several breakdowns' tables from one pass over the pageviews and their sessions (GROUPING SETS):
 * the page shows eight, and each alone read the same events and merged the same sessions.
 */
export async function webStatsTables(
  engine: AnalyticsEngine,
  teamId: number,
  window: Window,
  filters: readonly PropertyFilterInput[],
  breakdowns: readonly Breakdown[],
  limit: number,
  channelRules: readonly CustomChannelRule[] = [],
): Promise<Map<Breakdown, StatsRow[]>> {
  const asked = [...new Set(breakdowns)];
  const byBreakdown = new Map<Breakdown, StatsRow[]>(asked.map((b) => [b, []]));
  if (asked.length === 0) return byBreakdown;
  const eventColumns = asked.flatMap((b) => {
    const by = BREAKDOWN_COLUMNS[b];
    return 'event' in by ? [by.event] : [];
  });
  const sessionColumns = asked.flatMap((b) => {
    const by = BREAKDOWN_COLUMNS[b];
    return 'session' in by ? [by.session] : [];
  });
  const column = (b: Breakdown) => {
    const by = BREAKDOWN_COLUMNS[b];
    return 'event' in by ? by.event : by.session;
  };
  // One grouping set per breakdown; grouping(v_i) is 0 in the rows of set i (the standard's meaning).
  const values = asked.map((b, i) => `nullIf(${column(b)}, '') AS v_${i}`).join(', ');
  const set = `multiIf(${asked.map((_, i) => `grouping(v_${i}) = 0, ${i}`).join(', ')}, -1)`;
  const value = `multiIf(${asked.map((_, i) => `grouping(v_${i}) = 0, v_${i}`).join(', ')}, NULL)`;
  const { sql, params } = ch`
    SELECT ${raw(set)} AS breakdown, ${raw(value)} AS value, uniqIf(person, cur) AS visitors, countIf(cur) AS views,
      uniqIf(person, prev) AS previous_visitors, countIf(prev) AS previous_views
    FROM (
      SELECT ${raw(values)}, person, cur, prev
      FROM (${pageviews(engine, teamId, window, filters, [...new Set(eventColumns)], [...new Set(sessionColumns)], channelRules)})
    )
    GROUP BY GROUPING SETS (${raw(asked.map((_, i) => `(v_${i})`).join(', '))})
    HAVING views > 0
    ORDER BY breakdown ASC, visitors DESC, views DESC, value ASC
    LIMIT ${raw(String(limit))} BY breakdown
    SETTINGS ${raw(SESSIONS_IN_ORDER)}`.compile();
  const rows = await engine.query<Row>(sql, params);
  for (const row of rows) {
    byBreakdown.get(asked[Number(row.breakdown)]!)?.push({
      value: row.value === null ? null : String(row.value),
      visitors: Number(row.visitors),
      views: Number(row.views),
      previousVisitors: Number(row.previous_visitors),
      previousViews: Number(row.previous_views),
    });
  }
  return byBreakdown;
}

/** A vitals table's name: its metric and percentile, as the page asks for them (`LCP:p75`). */
export type VitalsTableKey = `${VitalsMetric}:${VitalsPercentile}`;

/**
 * Every web vital's percentiles per path over the period's `$web_vitals` events, from one pass
 * (the page asks eight tables, four metrics at two percentiles, and each alone read the same
 * events): per metric, the `limit` paths with the most values of it, each with the percentiles of
 * one quantile state. Paths without a value of a metric are not in its tables.
 */
export async function webVitalsTables(
  engine: AnalyticsEngine,
  teamId: number,
  period: Period,
  filters: readonly PropertyFilterInput[],
  limit = 100,
): Promise<Map<VitalsTableKey, PathValue[]>> {
  const percentiles = Object.entries(VITALS_PERCENTILES) as Array<[VitalsPercentile, number]>;
  const values = Object.entries(VITALS_COLUMNS)
    .map(([metric, column]) => `tuple('${metric}', e.${column})`)
    .join(', ');
  const { sql, params } = ch`
    SELECT metric, path, quantiles(${raw(percentiles.map(([, level]) => String(level)).join(', '))})(v) AS levels
    FROM (
      SELECT e.mat_pathname AS path, arrayJoin([${raw(values)}]) AS metric_value, metric_value.1 AS metric, metric_value.2 AS v
      FROM ${raw(engine.table('events'))} AS e
      WHERE e.team_id = ${teamId} AND e.event = '$web_vitals'
        AND e.timestamp >= ${chTime(period.from)} AND e.timestamp < ${chTime(period.to)}
        AND ${filtersCondition(filters)}
    )
    WHERE path IS NOT NULL AND path != '' AND v IS NOT NULL
    GROUP BY metric, path
    ORDER BY metric ASC, count() DESC, path ASC
    LIMIT ${raw(String(limit))} BY metric`.compile();
  const rows = await engine.query<Row & { levels: unknown }>(sql, params);
  const tables = new Map<VitalsTableKey, PathValue[]>();
  for (const metric of Object.keys(VITALS_COLUMNS) as VitalsMetric[])
    for (const [percentile] of percentiles) tables.set(`${metric}:${percentile}`, []);
  for (const row of rows) {
    const levels = Array.isArray(row.levels) ? (row.levels as unknown[]) : [];
    percentiles.forEach(([percentile], i) => {
      const v = finite(levels[i]);
      if (v !== null) tables.get(`${String(row.metric) as VitalsMetric}:${percentile}`)?.push({ path: String(row.path), value: v });
    });
  }
  return tables;
}

function finite(value: unknown): number | null {
  const n = Number(value);
  return value === null || value === undefined || !Number.isFinite(n) ? null : n;
}
