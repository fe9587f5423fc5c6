// @ts-check
/**
 * Mutation testing of what decides reads, writes and verdicts: `npm run mutation` (not part of `npm test`).
 * The report lands in reports/mutation/; SECURITY.md has the score and explains the surviving mutants.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/hardening/vitest.mutation.config.ts', related: true },
  coverageAnalysis: 'perTest',
  mutate: [
    // the policy core: paths, globs, the protected set, credential files, perimeters.yml
    'src/policy/*.ts',
    '!src/policy/index.ts',
    '!src/policy/spec.ts',
    // the verification: tree diff, history, the verdict, the receipt's state
    'src/verify/diff-trees.ts',
    'src/verify/history.ts',
    'src/verify/judge.ts',
    'src/verify/verify-job.ts',
    'src/verify/receipt.ts',
    // the gateway's enforcement: bearer and Host checks, tool selection, path refusals, readable sets, push
    'src/gateway/guard.ts',
    'src/gateway/http-server.ts',
    'src/gateway/tools/select.ts',
    'src/gateway/tools/paths.ts',
    'src/gateway/tree-index.ts',
    'src/gateway/history.ts',
    'src/gateway/push.ts',
  ],
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  thresholds: { high: 90, low: 85, break: null },
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
