/**
 * The tests StrykerJS runs against mutants of the verifier's gathering code (`npm run mutation:verify`):
 * its suites against the GitHub stand-in and the accounting's unit tests. The model-based check is left out
 * (seconds per history); its long run is `npm run model-check`.
 */
import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.workspace-aliases.js';

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: [
      'test/verify/{ref-accounting,verify-job,verify-job-adversarial,diff-trees,diff-hint,judge}.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
