import { defineConfig } from 'vitest/config';

/**
 * Tests that hold a bound on latency (issue 25: /_health within 200 ms while a backlog drains) run
 * after the others, alone: beside another test file on two cores they measure that file too.
 */
const SOLO = ['test/ingestion/worker/worker-responsiveness.test.ts'];

export default defineConfig({
  test: {
    // Servers, databases and child processes are real: give them room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a condition; its default second is a clock, which a loaded machine outruns.
    expect: { poll: { timeout: 20_000 } },
    pool: 'forks',
    // The web app, built once per run when stale (the server serves it; the browser tests drive it).
    globalSetup: ['test/web/global-setup.ts'],
    // Two cores: two files at a time keeps PostgreSQL and SQLite runs from starving each other.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: SOLO, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'solo', include: SOLO, sequence: { groupOrder: 1 } } },
    ],
  },
});
