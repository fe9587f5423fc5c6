/**
 * The tests StrykerJS runs against mutants of the enforcement code (`npm run mutation`): the unit and
 * stand-in tests of the policy, the verification and the gateway. End-to-end suites that start child
 * processes are left out: a mutant in this process never reaches a bundled child.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/policy/**/*.test.ts',
      'test/verify/**/*.test.ts',
      'test/gateway/{fail-closed,push-files,read-tools,server,tree-diff}.test.ts',
      'test/hardening/mutation-*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
