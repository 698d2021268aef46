import { defineConfig } from 'vitest/config';

/**
 * Tests on real trained weights (`npm run test:real`, which fetches them with `npm run models:real`
 * first): slow, so apart from the unit tests, and one file at a time to keep both cores for the model.
 */
export default defineConfig({
  test: {
    include: ['tests/real/**/*.test.ts'],
    environment: 'node',
    testTimeout: 900_000,
    fileParallelism: false,
  },
});
