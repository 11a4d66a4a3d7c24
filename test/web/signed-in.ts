import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchBrowser, watchedPage, type WatchedPage } from '../helpers/browser.js';
import { givePassword } from '../helpers/sessions.js';
import type { SharedTestServer, TestServer } from '../helpers/server.js';

export const TEST_PASSWORD = 'a long and good password 42';

/**
 * A browser context signed in as the bootstrap user, as the sign-in page does it: `POST /api/login/`
 * from the context, whose cookies (sessionid, posthog_csrftoken) its pages then use.
 * sign-in.test.ts drives the sign-in page itself.
 */
export async function signedInContext(
  browser: Browser,
  server: Pick<TestServer, 'url' | 'running' | 'bootstrap'>,
): Promise<BrowserContext> {
  await givePassword(server.running.ctx.database, server.bootstrap.user.id, TEST_PASSWORD);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const res = await context.request.post(`${server.url}/api/login/`, {
    data: { email: server.bootstrap.user.email, password: TEST_PASSWORD },
    headers: { origin: server.url },
  });
  expect(res.status(), await res.text()).toBe(200);
  return context;
}

export interface SignedInBrowser {
  browser: Browser;
  context: BrowserContext;
  watched: WatchedPage;
  page: Page;
}

/** Chromium, a context signed in as the bootstrap user, and a watched page in it. */
export async function openSignedIn(server: Pick<TestServer, 'url' | 'running' | 'bootstrap'>): Promise<SignedInBrowser> {
  const browser = await launchBrowser();
  try {
    const context = await signedInContext(browser, server);
    const watched = await watchedPage(context);
    return { browser, context, watched, page: watched.page };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** The file's signed-in browser (see useSignedIn), and the bootstrap environment's id. */
export interface SharedSignedIn extends SignedInBrowser {
  readonly env: number;
}

/**
 * The file's signed-in browser: opened (openSignedIn) in `beforeAll`, after the file's server has
 * started, and closed in `afterAll`, before it stops. Call it at the top level of a test file,
 * after useTestServer; the object it returns stands for the open browser inside tests and hooks.
 */
export function useSignedIn(server: SharedTestServer): SharedSignedIn {
  let opened: SignedInBrowser | undefined;
  beforeAll(async () => {
    opened = await openSignedIn(server);
  });
  afterAll(async () => {
    await opened?.browser.close();
  });
  const current = (): SignedInBrowser => {
    if (!opened) throw new Error('the browser is opened in beforeAll: use it inside tests and hooks');
    return opened;
  };
  return {
    get browser() {
      return current().browser;
    },
    get context() {
      return current().context;
    },
    get watched() {
      return current().watched;
    },
    get page() {
      return current().page;
    },
    get env() {
      return server.bootstrap.team.id;
    },
  };
}
