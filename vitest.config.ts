import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI: keep workers few so loopback servers are not starved.
    maxWorkers: 2,
    projects: [
      {
        // `npm run test:unit`: tests that start no process and open no socket (noIo.ts refuses both).
        extends: true,
        test: { name: 'unit', include: ['test/**/*.unit.test.ts'], setupFiles: ['test/support/noIo.ts'] },
      },
      {
        // Real servers, processes, browsers and binaries over loopback.
        extends: true,
        test: {
          name: 'io',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts'],
          // Looks for the Docker engine once per run: one line when test/containers must skip.
          globalSetup: ['test/containers/global-setup.ts'],
        },
      },
    ],
  },
});
