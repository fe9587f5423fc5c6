import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The end-to-end suites (test/action/) are the suite's longest files by far: a minute or more each, spent
 * mostly waiting on the processes they start and on the retries the action's steps make. On a fresh checkout
 * vitest has no durations cached and orders files by size, so one of them could start last and run alone
 * at the end; they start first, each group in vitest's own order (slowest cached first, else largest).
 */
class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const endToEnd = (file: TestSpecification) => /[\\/]test[\\/]action[\\/]/.test(file.moduleId);
    return [...sorted.filter(endToEnd), ...sorted.filter((file) => !endToEnd(file))];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // the real agent clients: `npm run test:agents` (vitest.agents.config.ts); the long runs: `npm run
    // test:long` (vitest.long.config.ts)
    exclude: [
      'test/agents/agents.test.ts',
      'test/agents/acceptance.test.ts',
      'test/agents/init-workflows.test.ts',
      'test/agents/readme-mutants.test.ts',
      '**/*.long.test.ts',
      '**/node_modules/**',
    ],
    // bounds for a hung test, far above what any test needs on a busy machine; no test races them
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Vitest's default is one worker less than the cores: a single worker on a 2-core machine. A file here
    // spends most of its time waiting (on the steps and gateways it starts, on git, on the retry backoff the
    // action's steps make), so at least four files run at once. Nothing in the suite depends on how fast a
    // test runs: the bounds above are for hangs only.
    maxWorkers: Math.max(4, availableParallelism()),
    sequence: { sequencer: EndToEndFirst },
  },
});
