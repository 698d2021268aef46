import { defineConfig } from 'vitest/config';

/** Browser tests: Node drives a real Debian Chromium (playwright-core) against the built app. */
export default defineConfig({
  test: {
    include: ['tests/browser/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['tests/browser/global-setup.ts'],
    // CI's machine has run these tests at up to 2.5x this machine's time (the 2,050-document library took
    // 50 s here and over 120 s there), so a test's bound is generous: it only decides how long a hung test
    // takes to be reported; every wait inside a test has its own bound.
    testTimeout: 360_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
