import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Looks for the Docker engine once per run: one line when test/containers must skip.
    globalSetup: ['test/containers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI: keep workers few so loopback servers are not starved.
    maxWorkers: 2,
  },
});
