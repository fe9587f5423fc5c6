import { defineConfig } from 'vitest/config';

/** `npm run test:agents`: the real agent clients (installed into .cache/agents), one at a time. */
export default defineConfig({
  test: {
    include: [
      'test/agents/agents.test.ts',
      'test/agents/acceptance.test.ts',
      'test/agents/init-workflows.test.ts',
    ],
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});
