import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Servers, databases and child processes are real: give them room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: two files at a time keeps PostgreSQL and SQLite runs from starving each other.
    maxWorkers: 2,
  },
});
