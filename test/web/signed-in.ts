import type { Browser, BrowserContext } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';

/**
 * A browser context signed in as the bootstrap user. For now through the bootstrap personal API key
 * sent with every request (the app itself only calls the public /api); sign-in.test.ts drives the
 * sign-in page.
 */
export async function signedInContext(browser: Browser, server: Pick<TestServer, 'key'>): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1280, height: 800 }, extraHTTPHeaders: { authorization: `Bearer ${server.key}` } });
}
