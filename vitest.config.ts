import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // the real agent clients: `npm run test:agents` (vitest.agents.config.ts); the long runs: `npm run
    // test:long` (vitest.long.config.ts)
    exclude: ['test/agents/agents.test.ts', '**/*.long.test.ts', '**/node_modules/**'],
    // bounds for a hung test, far above what any test needs on a busy machine; no test races them
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
