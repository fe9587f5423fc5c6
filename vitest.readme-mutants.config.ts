import { defineConfig } from 'vitest/config';

/**
 * `npm run test:readme-mutants`: README's workflows with each line deleted in turn, each run whole with the
 * real clients (test/agents/readme-mutants.test.ts). 30 to 40 minutes: a mutation run, like `npm run
 * mutation`, not part of CI's `.ci/run`.
 */
export default defineConfig({
  test: {
    include: ['test/agents/readme-mutants.test.ts'],
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 3_600_000,
    hookTimeout: 900_000,
  },
});
