/**
 * The web app on a loaded server (bench/analytics.ts): the time from navigating to Activity to its
 * events table showing rows, to the web analytics page with every tile filled and to a dashboard
 * with every chart drawn, in Debian's Chromium through playwright-core, signed in as a person
 * would be. The first navigation loads the app's files; the median is of the navigations after it
 * (files cached, as for someone coming back), each a full page load, timed until its condition
 * holds in the page (checked at every frame).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from './harness.js';
import { postBatch } from './posthog-node-batches.js';

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

/**
 * A condition on the page's DOM (an expression evaluated in the page), checked at every frame the
 * page draws. Playwright's locator waits check at growing intervals from the bench's side (after
 * 0, 20, 50, 100 and 100 ms, then every 500 ms): a page done at 1.8 s was seen done at up to 2.3 s.
 * Elements waited for as visible are checked as locators check them: a non-empty box, not hidden.
 */
type PageCondition = string;

/**
 * Waits until `condition` holds in the page, checked at each animation frame, for up to 30 s (as
 * a locator's wait). Through page.evaluate (the debugger's evaluation), which the app's CSP does
 * not forbid; playwright's waitForFunction evaluates its predicate with the page's eval, which the
 * CSP refuses.
 */
async function until(page: Page, condition: PageCondition): Promise<void> {
  await page.evaluate(`new Promise((resolve, reject) => {
    const deadline = performance.now() + 30000;
    const check = () => {
      if (${condition}) resolve(true);
      else if (performance.now() > deadline) reject(new Error(${JSON.stringify(`not in 30 s: ${condition}`)}));
      else requestAnimationFrame(check);
    };
    check();
  })`);
}

/** Playwright's visible, in the page: laid out with a non-empty box and not `visibility: hidden`. */
const SHOWN = `((e) => { const box = e.getBoundingClientRect(); return box.width > 0 && box.height > 0 && e.checkVisibility({ visibilityProperty: true }); })`;
const visible = (selector: string) => `[document.querySelector('${selector}')].some((e) => e !== null && ${SHOWN}(e))`;

/** Web analytics: the visitors tile, no tile or table still loading, and the vitals' rows. */
const WEB_ANALYTICS_DONE: PageCondition = [
  visible('[data-testid="tile-visitors"]'),
  `!document.querySelector('[aria-busy="true"]')`,
  visible('[data-testid="web-vitals"] tbody tr'),
].join(' && ');

/** Web analytics (`/project/:id/web`, last 30 days): the overview, eight tables and the vitals, none still loading. */
export function navigationToWebAnalytics(url: string, projectId: number, serverEnv: Record<string, string>): Promise<NavigationFigure> {
  return navigationTo(url, `/project/${projectId}/web?from=-30d`, serverEnv, WEB_ANALYTICS_DONE, (page) =>
    page.locator('[data-testid^="table-"] tbody tr').count(),
  );
}

const DRAWN_TILE = '[data-testid="dashboard-tile"] [data-testid="insight-viz"][aria-busy="false"]';

/** A dashboard (`/project/:id/dashboard/:dashboardId`) until each of its `tiles` charts is drawn, none still loading. */
export function navigationToDashboard(
  url: string,
  projectId: number,
  dashboardId: number,
  tiles: number,
  serverEnv: Record<string, string>,
): Promise<NavigationFigure> {
  // ChartCanvas draws a chart in the commit that places it: a tile in the page is drawn.
  const done = `[...document.querySelectorAll('${DRAWN_TILE}')].filter(${SHOWN}).length >= ${tiles}`;
  return navigationTo(url, `/project/${projectId}/dashboard/${dashboardId}`, serverEnv, done, (page) => page.locator(DRAWN_TILE).count());
}

export function navigationToEventsTable(url: string, projectId: number, serverEnv: Record<string, string>): Promise<NavigationFigure> {
  return navigationTo(url, `/project/${projectId}/activity`, serverEnv, visible('[data-testid="event-row"]'), (page) =>
    page.getByTestId('event-row').count(),
  );
}

const PASSWORD = 'bench-password-0123456789';

/** A browser with a page signed in as `email` (its password set through the CLI first). */
async function signedIn(
  url: string,
  serverEnv: Record<string, string>,
  email = 'admin@hoglet.local',
): Promise<{ browser: Browser; page: Page }> {
  await setPassword(serverEnv, email, PASSWORD);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${url}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((target) => !target.pathname.startsWith('/login'));
    return { browser, page };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** Signs in, then times full loads of `target` until `done` holds; `rows` counts what it shows. */
async function navigationTo(
  url: string,
  target: string,
  serverEnv: Record<string, string>,
  done: PageCondition,
  rows: (page: Page) => Promise<number>,
): Promise<NavigationFigure> {
  const { browser, page } = await signedIn(url, serverEnv);
  try {
    const once = async () => {
      const started = performance.now();
      await page.goto(`${url}${target}`);
      await until(page, done);
      return performance.now() - started;
    };
    const firstMs = await once();
    const times: number[] = [];
    for (let i = 0; i < REPEATS; i++) times.push(await once());
    times.sort((a, b) => a - b);
    return { firstMs, medianMs: times[Math.floor(times.length / 2)]!, rows: await rows(page) };
  } finally {
    await browser.close();
  }
}

/** What the Activity page's main thread did over a stretch of seconds. */
export interface FrameFigure {
  /** Frames the page drew a second. */
  fps: number;
  /** The longest task that held the page's thread (the browser's long tasks: over 50 ms). */
  longestTaskMs: number;
  longTasks: number;
  /** Event rows in the page's DOM at the end. */
  rowsInDom: number;
}

/** Counts frames and long tasks in the page for `seconds`, while `meanwhile` runs. */
async function watchFrames(page: Page, seconds: number, meanwhile: () => Promise<void>): Promise<FrameFigure> {
  // Run in the page (the bench has no DOM types): a frame counter and a long-task observer.
  await page.evaluate(`(() => {
    window.benchFrames = 0;
    window.benchTasks = [];
    const tick = () => { window.benchFrames++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.benchTasks.push(e.duration); }).observe({ type: 'longtask' });
  })()`);
  const started = performance.now();
  await meanwhile();
  const left = seconds * 1000 - (performance.now() - started);
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  const elapsed = (performance.now() - started) / 1000;
  const { frames, tasks } = (await page.evaluate('({ frames: window.benchFrames, tasks: window.benchTasks })')) as {
    frames: number;
    tasks: number[];
  };
  return {
    fps: frames / elapsed,
    longestTaskMs: tasks.length === 0 ? 0 : Math.max(...tasks),
    longTasks: tasks.length,
    rowsInDom: await page.getByTestId('event-row').count(),
  };
}

/**
 * Activity's live tail while `rate` events a second arrive through `/batch/` (100 a request), and
 * as its baseline the same page for the same time with nothing arriving.
 */
export async function liveTail(
  url: string,
  projectId: number,
  token: string,
  serverEnv: Record<string, string>,
  rate = 1000,
  seconds = 10,
): Promise<{ idle: FrameFigure; busy: FrameFigure; sent: number }> {
  const { browser, page } = await signedIn(url, serverEnv);
  try {
    await page.goto(`${url}/project/${projectId}/activity`);
    await page.getByTestId('event-row').first().waitFor();
    const idle = await watchFrames(page, seconds, async () => undefined);
    await page.reload();
    await page.getByTestId('event-row').first().waitFor();
    let sent = 0;
    const busy = await watchFrames(page, seconds, async () => {
      const started = performance.now();
      const perRequest = 100;
      while (performance.now() - started < seconds * 1000) {
        const due = started + (sent / rate) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const batch = Array.from({ length: perRequest }, (_, i) => ({
          event: 'live tail',
          distinct_id: `tail-${(sent + i) % 500}`,
          properties: { n: sent + i },
          uuid: randomUUID(),
        }));
        await postBatch(url, JSON.stringify({ api_key: token, batch }));
        sent += perRequest;
      }
    });
    return { idle, busy, sent };
  } finally {
    await browser.close();
  }
}
