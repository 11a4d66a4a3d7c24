/**
 * `npm run bench:analytics` (and the end of `npm run bench`): charts on a million events (ten
 * million with `--ten-million`, or BENCH_ANALYTICS_EVENTS). The events go through `/batch/` and
 * the worker into the embedded ClickHouse; then each chart is asked of Hoglet's API and, as its
 * baseline, the same question is put to the engine directly (the server stopped, the folder opened
 * in this process), both timed as the median of five after a warm-up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { analyticsBatches } from './analytics-events.js';
import { postBatch } from './posthog-node-batches.js';
import { fmt, spawnHoglet, waitForOutput, type Child } from './harness.js';
import { EmbeddedEngine } from '../src/platform/analytics/embedded-engine.js';
import { analyticsFolder } from '../src/platform/analytics/open.js';
import { trendsWindow } from '../src/insights/trends-window.js';
import { previousPeriod } from '../src/web-analytics/core/index.js';
import { BREAKDOWNS, type Breakdown } from '../src/web-analytics/query.js';
import { webOverview, webStatsTables, webVitalsTables } from '../src/web-analytics/store.js';
import {
  liveTail,
  navigationToDashboard,
  navigationToEventsTable,
  navigationToWebAnalytics,
  type FrameFigure,
  type NavigationFigure,
} from './web-navigation.js';
import { createBenchDashboard, DASHBOARD_TILES, tileQueriesAtOnce } from './dashboard-tiles.js';

const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';
const REPEATS = 5;
const CONCURRENT_REQUESTS = 4;
const BATCH_EVENTS = 500;

interface Chart {
  name: string;
  /** The API request: a GET path, or a POST path and its JSON body. */
  api: { path: string; body?: unknown };
  /** The same question as ClickHouse SQL; `{db}` is the database, `{team}` the environment. */
  engine: string;
}

const DAY = '30 DAY';
const pageviews = (extra = '') =>
  `FROM {db}.events WHERE team_id = {team} AND event = '$pageview' AND timestamp >= now() - INTERVAL ${DAY}${extra}`;

function charts(base: string): Chart[] {
  const trends = (series: unknown[], more: Record<string, unknown> = {}) => ({
    path: `${base}/query/`,
    body: { query: { kind: 'TrendsQuery', series, dateRange: { date_from: '-30d' }, interval: 'day', ...more } },
  });
  const pageview = { kind: 'EventsNode', event: '$pageview', name: '$pageview' };
  return [
    {
      name: 'trends: pageviews, 30 days',
      api: trends([{ ...pageview, math: 'total' }]),
      engine: `SELECT toStartOfDay(timestamp) d, count() ${pageviews()} GROUP BY d ORDER BY d`,
    },
    {
      name: 'trends: unique users, 30 days',
      api: trends([{ ...pageview, math: 'dau' }]),
      engine: `SELECT toStartOfDay(e.timestamp) d, uniqExact(if(o.old_person_id = e.person_id, o.override_person_id, e.person_id))
        FROM {db}.events e LEFT JOIN (SELECT old_person_id, argMax(override_person_id, version) override_person_id FROM {db}.person_overrides
        WHERE team_id = {team} GROUP BY old_person_id) o ON o.old_person_id = e.person_id
        WHERE e.team_id = {team} AND e.event = '$pageview' AND e.timestamp >= now() - INTERVAL ${DAY} GROUP BY d ORDER BY d`,
    },
    {
      name: 'trends: breakdown by $browser',
      api: trends([{ ...pageview, math: 'total' }], { breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }),
      engine: `SELECT toStartOfDay(timestamp) d, mat_browser, count() ${pageviews()} GROUP BY d, mat_browser ORDER BY d`,
    },
    {
      name: 'trends: all events, property filter',
      api: trends([{ kind: 'EventsNode', event: null, name: 'All events', math: 'total' }], {
        properties: [{ key: '$current_url', value: 'pricing', operator: 'icontains', type: 'event' }],
      }),
      engine: `SELECT toStartOfDay(timestamp) d, count() FROM {db}.events WHERE team_id = {team} AND timestamp >= now() - INTERVAL ${DAY}
        AND ifNull(ilike(mat_current_url, '%pricing%'), 0) GROUP BY d ORDER BY d`,
    },
    {
      name: 'funnel: / → /pricing → /signup',
      api: {
        path: `${base}/query/`,
        body: {
          query: {
            kind: 'FunnelsQuery',
            series: ['/', '/pricing', '/signup'].map((p) => ({
              ...pageview,
              properties: [{ key: '$pathname', value: p, operator: 'exact', type: 'event' }],
            })),
            dateRange: { date_from: '-30d' },
            funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
          },
        },
      },
      engine: `SELECT level, count() FROM (SELECT person_id, windowFunnel(1209600)(toDateTime(timestamp), mat_pathname = '/', mat_pathname = '/pricing', mat_pathname = '/signup') level
        ${pageviews()} GROUP BY person_id) GROUP BY level ORDER BY level`,
    },
    {
      name: 'web vitals: /pricing',
      api: { path: `${base}/web_vitals/?pathname=/pricing` },
      engine: `SELECT toStartOfWeek(timestamp) w, quantile(0.9)(toFloat64OrNull(JSONExtractRaw(properties, '$web_vitals_INP_value'))) FROM {db}.events
        WHERE team_id = {team} AND event = '$web_vitals' AND mat_pathname = '/pricing' AND timestamp >= now() - INTERVAL 28 DAY GROUP BY w`,
    },
    {
      name: 'sessions values: $entry_current_url',
      api: { path: `${base}/sessions/values/?key=$entry_current_url` },
      engine: `SELECT url, count() c FROM (SELECT session_id, argMin(mat_current_url, timestamp) url FROM {db}.events WHERE team_id = {team}
        AND session_id != '' GROUP BY session_id) GROUP BY url ORDER BY c DESC LIMIT 100`,
    },
  ];
}

/**
 * The web analytics page's questions put to the engine directly, one after the other as the server
 * runs them (the overview with its previous period, the eight tables in one pass, the vitals in one):
 * the baseline of the page's figure, what is left when the browser, HTTP and the server are not.
 */
async function webAnalyticsDirect(engine: EmbeddedEngine, teamId: number): Promise<void> {
  const window = trendsWindow({ interval: 'day', dateFrom: '-30d', dateTo: null }, new Date());
  const current = { from: window.from, to: window.to };
  await webOverview(engine, teamId, { current, previous: previousPeriod(current) }, []);
  await webStatsTables(engine, teamId, { current, previous: null }, [], Object.keys(BREAKDOWNS) as Breakdown[], 10);
  await webVitalsTables(engine, teamId, current, []);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return median(times);
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** Events still on their way to ClickHouse: in the queue or the outbox. */
export function pending(sqliteFile: string): number {
  const db = new BetterSqlite3(sqliteFile, { readonly: true, fileMustExist: true });
  try {
    const queued = db.prepare('select coalesce(sum(event_count), 0) n from ingestion_queue').get() as { n: number };
    // An outbox row is a batch: its events are its lines.
    const outbox = db
      .prepare(
        "select coalesce(sum(length(events) - length(replace(events, char(10), '')) + 1), 0) n from analytics_outbox where events != ''",
      )
      .get() as { n: number };
    return queued.n + outbox.n;
  } finally {
    db.close();
  }
}

async function load(url: string, token: string, count: number, sqliteFile: string): Promise<number> {
  const started = performance.now();
  const batches = analyticsBatches(count, BATCH_EVENTS);
  let sent = 0;
  let lastReport = 0;
  const sender = async () => {
    for (let next = batches.next(); !next.done; next = batches.next()) {
      await postBatch(url, JSON.stringify({ api_key: token, batch: next.value }));
      sent += next.value.length;
      if (sent - lastReport >= count / 10) {
        lastReport = sent;
        process.stdout.write(`  sent ${fmt(sent)} of ${fmt(count)} events\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_REQUESTS }, sender));
  for (;;) {
    const left = pending(sqliteFile);
    if (left === 0) break;
    process.stdout.write(`  ${fmt(left)} events still being stored\n`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  return count / ((performance.now() - started) / 1000);
}

export async function analyticsBench(count: number): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-bench-analytics-'));
  const dataDir = path.join(dir, 'hoglet');
  const lines: string[] = [`Analytics on ${fmt(count)} events (embedded ClickHouse), median of ${REPEATS} after a warm-up:`];
  let hoglet: Child | undefined;
  try {
    const serverEnv = { DATA_DIR: dataDir, DATABASE_URL: '' };
    hoglet = await spawnHoglet([], {
      ...serverEnv,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      GEOIP: 'off',
      HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
    });
    const server = hoglet;
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const project = (
      (await (await fetch(`${server.url}/api/projects/`, { headers })).json()) as { results: Array<{ id: number; api_token: string }> }
    ).results[0]!;
    // Idle with the engine open (it opens after the server listens): one query waits for it.
    await fetch(`${server.url}/api/environments/${project.id}/events/?limit=1`, { headers });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleRss = rssMb(server.child.pid!);
    const eventsPerSecond = await load(server.url, project.api_token, count, path.join(dataDir, 'hoglet.db'));
    const loadedRss = rssMb(server.child.pid!);
    // The server merges the sessions table once ingestion has been quiet for 30 s
    // (events/sessions-merger.ts): the figures are of the table as it stays, not as the load left it,
    // and no merge runs while they are measured.
    const mergedAfterMs = await waitForOutput(server, 'sessions table merged into one part', 90_000);
    const list = charts(`/api/environments/${project.id}`);
    const apiMs = new Map<string, number>();
    for (const chart of list) {
      apiMs.set(
        chart.name,
        await timed(async () => {
          const response = await fetch(
            `${server.url}${chart.api.path}`,
            chart.api.body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(chart.api.body) },
          );
          if (response.status !== 200) throw new Error(`${chart.name}: ${response.status} ${(await response.text()).slice(0, 300)}`);
          await response.arrayBuffer();
        }).catch((error: unknown) => {
          lines.push(`  ${chart.name}: API failed (${(error as Error).message})`);
          return NaN;
        }),
      );
    }
    let navigation: NavigationFigure | string;
    try {
      navigation = await navigationToEventsTable(server.url, project.id, serverEnv);
    } catch (error) {
      navigation = (error as Error).message;
    }
    let webAnalytics: NavigationFigure | string;
    try {
      webAnalytics = await navigationToWebAnalytics(server.url, project.id, serverEnv);
    } catch (error) {
      webAnalytics = (error as Error).message;
    }
    let dashboard: { page: NavigationFigure; queriesMs: number } | string;
    try {
      const dashboardId = await createBenchDashboard(server.url, project.id, headers);
      const queriesMs = await timed(() => tileQueriesAtOnce(server.url, project.id, headers));
      dashboard = { page: await navigationToDashboard(server.url, project.id, dashboardId, DASHBOARD_TILES.length, serverEnv), queriesMs };
    } catch (error) {
      dashboard = (error as Error).message;
    }
    let webAnalyticsEngineMs = NaN;
    let tail: { idle: FrameFigure; busy: FrameFigure; sent: number } | string;
    try {
      tail = await liveTail(server.url, project.id, project.api_token, serverEnv);
    } catch (error) {
      tail = (error as Error).message;
    }
    await server.stop();
    hoglet = undefined;
    const engine = await EmbeddedEngine.open({
      path: analyticsFolder(dataDir),
      maxMemoryBytes: 2048 * 1024 * 1024,
      maxThreads: os.availableParallelism(),
    });
    try {
      for (const chart of list) {
        const statement = chart.engine.replaceAll('{db}', '`hoglet`').replaceAll('{team}', String(project.id));
        const engineMs = await timed(() => engine.query(statement));
        const api = apiMs.get(chart.name)!;
        lines.push(
          `  ${chart.name.padEnd(40)} ${fmt(api).padStart(8)} ms   engine directly ${fmt(engineMs).padStart(7)} ms   ratio ${(api / engineMs).toFixed(1)}`,
        );
      }
      webAnalyticsEngineMs = await timed(() => webAnalyticsDirect(engine, project.id));
      const [stored] = await engine.query<{ rows: number; bytes: number }>(
        "SELECT sum(rows) rows, sum(bytes_on_disk) bytes FROM system.parts WHERE database = 'hoglet' AND table = 'events' AND active",
      );
      lines.push(`  stored: ${fmt(stored!.rows)} events, ${fmt(stored!.bytes / stored!.rows)} bytes an event on disk (events table)`);
    } finally {
      await engine.close();
    }
    lines.push(
      typeof navigation === 'string'
        ? `  web app, Activity's events table: failed (${navigation})`
        : `  web app, navigation to Activity's events table rendered (Chromium): ${fmt(navigation.medianMs)} ms (median of 5; first visit ${fmt(navigation.firstMs)} ms, ${navigation.rows} rows shown)`,
    );
    lines.push(
      typeof webAnalytics === 'string'
        ? `  web app, web analytics page: failed (${webAnalytics})`
        : `  web app, navigation to web analytics rendered, every tile (Chromium): ${fmt(webAnalytics.medianMs)} ms (median of 5; first visit ${fmt(webAnalytics.firstMs)} ms, ${webAnalytics.rows} table rows shown; target 1,500 ms)   engine directly, the page's SQL in turn ${fmt(webAnalyticsEngineMs)} ms`,
    );
    lines.push(
      typeof dashboard === 'string'
        ? `  web app, six-tile dashboard: failed (${dashboard})`
        : `  web app, navigation to a six-tile dashboard rendered, every chart (Chromium): ${fmt(dashboard.page.medianMs)} ms (median of 5; first visit ${fmt(dashboard.page.firstMs)} ms, ${dashboard.page.rows} charts drawn; the six tiles' queries through the API at once ${fmt(dashboard.queriesMs)} ms; target 1,500 ms)`,
    );
    const frames = (f: FrameFigure) =>
      `${fmt(f.fps)} frames/s, ${f.longTasks} long tasks (longest ${fmt(f.longestTaskMs)} ms), ${f.rowsInDom} rows in the DOM`;
    lines.push(
      typeof tail === 'string'
        ? `  web app, Activity's live tail: failed (${tail})`
        : `  web app, Activity's live tail at 1,000 events/s for 10 s (${fmt(tail.sent)} sent): ${frames(tail.busy)}; idle, same page: ${frames(tail.idle)}`,
    );
    lines.push(`  ingestion through /batch/ into ClickHouse: ${fmt(eventsPerSecond)} events/s (send to stored)`);
    lines.push(
      Number.isNaN(mergedAfterMs)
        ? '  sessions table: not merged by the server within 90 s of the load (figures above on its parts as the load left them)'
        : `  sessions table merged by the server ${fmt(mergedAfterMs / 1000)} s after the load was stored, before the figures above`,
    );
    lines.push(`  server RSS (GEOIP=off): ${fmt(idleRss)} MB idle with the engine open, ${fmt(loadedRss)} MB right after the load`);
    return lines.join('\n');
  } finally {
    await hoglet?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const direct = process.argv[1] && path.basename(process.argv[1]).startsWith('analytics');
if (direct) {
  const count = Number(process.env.BENCH_ANALYTICS_EVENTS ?? (process.argv.includes('--ten-million') ? 10_000_000 : 1_000_000));
  analyticsBench(count).then(
    (text) => process.stdout.write(`${text}\n`),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
