import { defineConfig } from 'vitest/config';

// `npm start` runs a whole sweep and judges whether its load generator kept up: alongside other
// test files on a 2-core machine it would not (its points measured invalid, rightly), so it runs
// alone, after the rest.
const ALONE = ['test/cli/start.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
