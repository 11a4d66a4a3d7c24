/**
 * `node scripts/run.mjs dist/bench/web-analytics-queries.js <data dir> [events]`: the web analytics
 * page's queries one by one on a server over `<data dir>` (loaded with the analytics bench's events
 * the first time, kept after), each the median of three, then all at once as the page sends them,
 * then the page itself in Chromium. For working on the page's speed without loading a million
 * events at every run. `--from=all` (or another date_from) asks for that range instead of -30d.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pending } from './analytics.js';
import { analyticsBatches } from './analytics-events.js';
import { postBatch } from './posthog-node-batches.js';
import { fmt, spawnHoglet } from './harness.js';
import { navigationToWebAnalytics } from './web-navigation.js';

const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';

/** The queries the page sends (web/src/pages/web): the overview, eight tables, eight vitals. */
export function pageQueries(dateFrom = '-30d'): Array<{ name: string; query: Record<string, unknown> }> {
  const dateRange = { date_from: dateFrom, date_to: null };
  const base = { dateRange, properties: [] };
  return [
    { name: 'overview', query: { kind: 'WebOverviewQuery', ...base, compareFilter: { compare: true } } },
    ...['Page', 'InitialPage', 'InitialReferringDomain', 'InitialChannelType', 'Country', 'Browser', 'DeviceType', 'OS'].map((b) => ({
      name: `table ${b}`,
      query: { kind: 'WebStatsTableQuery', breakdownBy: b, ...base, limit: 10, compareFilter: { compare: false } },
    })),
    ...['LCP', 'INP', 'CLS', 'FCP'].flatMap((metric) =>
      ['p75', 'p90'].map((percentile) => ({
        name: `vitals ${metric} ${percentile}`,
        query: { kind: 'WebVitalsPathBreakdownQuery', metric, percentile, ...base },
      })),
    ),
  ];
}

async function main() {
  const dataDir = path.resolve(process.argv[2] ?? '/tmp/hoglet-wa');
  const count = Number(process.argv[3] ?? 200_000);
  const loadedMark = path.join(dataDir, `loaded-${count}`);
  const serverEnv = { DATA_DIR: dataDir, DATABASE_URL: '' };
  const server = await spawnHoglet([], {
    ...serverEnv,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    GEOIP: 'off',
    HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
  });
  try {
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const project = (
      (await (await fetch(`${server.url}/api/projects/`, { headers })).json()) as { results: Array<{ id: number; api_token: string }> }
    ).results[0]!;
    if (!fs.existsSync(loadedMark)) {
      let sent = 0;
      for (const batch of analyticsBatches(count, 500)) {
        await postBatch(server.url, JSON.stringify({ api_key: project.api_token, batch }));
        sent += batch.length;
        if (sent % 50_000 === 0) process.stdout.write(`  sent ${fmt(sent)}\n`);
      }
      process.stdout.write(`  sent ${fmt(count)} events\n`);
      for (let left = pending(path.join(dataDir, 'hoglet.db')); left > 0; left = pending(path.join(dataDir, 'hoglet.db'))) {
        process.stdout.write(`  ${fmt(left)} events still being stored\n`);
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
      fs.writeFileSync(loadedMark, '');
    }
    const ask = async (query: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/api/environments/${project.id}/query/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query }),
      });
      if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
      return response.json();
    };
    const from = process.argv.find((arg) => arg.startsWith('--from='))?.slice('--from='.length);
    const queries = pageQueries(from);
    let sum = 0;
    for (const { name, query } of queries) {
      await ask(query);
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        await ask(query);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      sum += times[1]!;
      process.stdout.write(`  ${name.padEnd(28)} ${fmt(times[1]!).padStart(7)} ms\n`);
    }
    process.stdout.write(`  sum one by one               ${fmt(sum).padStart(7)} ms\n`);
    const all: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await Promise.all(queries.map((q) => ask(q.query)));
      all.push(performance.now() - started);
    }
    all.sort((a, b) => a - b);
    process.stdout.write(`  all at once                  ${fmt(all[1]!).padStart(7)} ms\n`);
    if (!process.argv.includes('--no-browser')) {
      const nav = await navigationToWebAnalytics(server.url, project.id, serverEnv);
      process.stdout.write(
        `  page rendered (Chromium)     ${fmt(nav.medianMs).padStart(7)} ms (first ${fmt(nav.firstMs)} ms, ${nav.rows} rows)\n`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
