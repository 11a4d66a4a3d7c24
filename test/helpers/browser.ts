/**
 * Debian's Chromium driven by playwright-core, for the browser tests: one browser per test file,
 * pages that record every console error, uncaught exception and dialog, and screenshots kept as
 * test artifacts in .tmp/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { REPO_ROOT } from './process.js';

export const CHROMIUM = process.env.HOGLET_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];
export const SCREENSHOTS = path.join(REPO_ROOT, '.tmp', 'screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions, in order, as text. */
  errors: string[];
  /** Messages of alert/confirm/prompt dialogs the page opened (dismissed at once). */
  dialogs: string[];
}

/** A page that records what went wrong in it. */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { page, errors, dialogs };
}

/**
 * The errors, without the browser's lines for the HTTP statuses a step expects (Chromium logs
 * "Failed to load resource: … status of 401" for a refused request the page handles).
 */
export function unexpectedErrors(watched: WatchedPage, expectedStatuses: number[] = []): string[] {
  return watched.errors.filter(
    (text) => !expectedStatuses.some((status) => text.includes(`Failed to load resource: the server responded with a status of ${status}`)),
  );
}

/**
 * Fails with the page's errors and dialogs so far (besides refused requests a step expects), then
 * forgets the errors, so that the next step starts clean.
 */
export function expectNoPageErrors(watched: WatchedPage, expectedStatuses: number[] = []): void {
  expect(unexpectedErrors(watched, expectedStatuses)).toEqual([]);
  expect(watched.dialogs).toEqual([]);
  watched.errors.length = 0;
}

/** Saves a full-page screenshot as `.tmp/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
