/**
 * The tests StrykerJS runs against mutants of the enforcement code (`npm run mutation`): the in-process
 * tests of the policy, the verdict and the gateway (over a memory upstream). Suites against the stand-in
 * cost seconds per mutant on a 2-core machine and end-to-end suites run bundled children no mutant
 * reaches, so they are left out; test/hardening/mutation-*.test.ts fill the gaps in-process.
 */
import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.workspace-aliases.js';

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: [
      'test/policy/**/*.test.ts',
      'test/verify/{judge,receipt,commit-judge}.test.ts',
      'test/apply/review-routing.test.ts',
      'test/gateway/{fail-closed,changed-paths,push-plan}.test.ts',
      'test/hardening/mutation-*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
