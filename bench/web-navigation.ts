/**
 * The web app on a loaded server (bench/analytics.ts): the time from navigating to Activity to its
 * events table showing rows, and to the web analytics page with every tile filled, in Debian's Chromium through playwright-core, signed in as a person
 * would be. The first navigation loads the app's files; the median is of the navigations after it
 * (files cached, as for someone coming back), each a full page load.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { ROOT } from './harness.js';

const CHROMIUM = process.env.HOGLET_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'];
const REPEATS = 5;

/** `hoglet users set-password` on the server's data dir, the password on standard input. */
async function setPassword(env: Record<string, string>, email: string, password: string): Promise<void> {
  const cli = spawn(
    process.execPath,
    [path.join(ROOT, 'scripts/run.mjs'), 'dist/src/cli/main.js', 'users', 'set-password', '--email', email],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'ignore', 'inherit'],
    },
  );
  cli.stdin.end(`${password}\n`);
  const code = await new Promise<number | null>((resolve) => cli.on('exit', resolve));
  if (code !== 0) throw new Error(`hoglet users set-password exited with ${code}`);
}

export interface NavigationFigure {
  firstMs: number;
  medianMs: number;
  rows: number;
}

/** Web analytics (`/project/:id/web`, last 30 days): the overview, eight tables and the vitals, none still loading. */
export function navigationToWebAnalytics(url: string, projectId: number, serverEnv: Record<string, string>): Promise<NavigationFigure> {
  return navigationTo(url, `/project/${projectId}/web?from=-30d`, serverEnv, async (page) => {
    await page.locator('[data-testid="tile-visitors"]').waitFor();
    await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
    await page.locator('[data-testid="web-vitals"] tbody tr').first().waitFor();
    return page.locator('[data-testid^="table-"] tbody tr').count();
  });
}

export function navigationToEventsTable(url: string, projectId: number, serverEnv: Record<string, string>): Promise<NavigationFigure> {
  return navigationTo(url, `/project/${projectId}/activity`, serverEnv, async (page) => {
    await page.getByTestId('event-row').first().waitFor();
    return page.getByTestId('event-row').count();
  });
}

/** Signs in, then times full loads of `target` until `ready` (which answers the rows shown). */
async function navigationTo(
  url: string,
  target: string,
  serverEnv: Record<string, string>,
  ready: (page: Page) => Promise<number>,
  email = 'admin@hoglet.local',
): Promise<NavigationFigure> {
  const password = 'bench-password-0123456789';
  await setPassword(serverEnv, email, password);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${url}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((target) => !target.pathname.startsWith('/login'));
    let rows = 0;
    const once = async () => {
      const started = performance.now();
      await page.goto(`${url}${target}`);
      rows = await ready(page);
      return performance.now() - started;
    };
    const firstMs = await once();
    const times: number[] = [];
    for (let i = 0; i < REPEATS; i++) times.push(await once());
    times.sort((a, b) => a - b);
    return { firstMs, medianMs: times[Math.floor(times.length / 2)]!, rows };
  } finally {
    await browser.close();
  }
}
