// @ts-check
/**
 * Mutation testing of the verifier's gathering code (`npm run mutation:verify`): what it reads from GitHub
 * and how it accounts for it, against the suites that run it on the GitHub stand-in. Slower per mutant than
 * stryker.config.mjs (seconds, not milliseconds), so it is its own run; SECURITY.md has the score per file.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
import base from './stryker.config.mjs';

export default {
  ...base,
  vitest: { configFile: 'test/verify/vitest.mutation.config.ts', related: false },
  mutate: [
    'src/verify/gathering/ref-accounting.ts',
    'src/verify/gathering/activity.ts',
    'src/verify/gathering/others.ts',
    'src/verify/gathering/new-commits.ts',
    'src/verify/verify-job.ts',
    'src/verify/gathering/diff-trees.ts',
    'src/verify/gathering/diff-hint.ts',
  ],
  timeoutMS: 60_000,
  jsonReporter: { fileName: 'reports/mutation-verify/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation-verify/mutation.html' },
  incrementalFile: 'reports/mutation-verify/stryker-incremental.json',
};
