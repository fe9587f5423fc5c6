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
    // the policy core: path validation, glob decisions, the protected set, credential files, perimeters
    'src/policy/path.ts',
    'src/policy/glob.ts',
    'src/policy/perimeter.ts',
    'src/policy/protected.ts',
    'src/policy/credentials.ts',
    // the trusted config ref: which refs the job's token cannot move (test/policy/config-ref.test.ts, ref-rules.test.ts)
    'src/policy/establish/config-ref.ts',
    'src/policy/establish/ref-rules.ts',
    // the establish step: which perimeters judge, for main, the verify job and apply (test/policy/establish.test.ts)
    'src/policy/establish/establish.ts',
    // the verification: the verdict, and the one rule every judge decides a commit by
    'src/verify/judging/judge.ts',
    'src/verify/judging/ref-findings.ts',
    'src/verify/judging/receipt-findings.ts',
    'src/verify/judging/commit-judge.ts',
    'src/verify/judging/file-decisions.ts',
    // review routing
    'src/apply/review-routing.ts',
    'src/policy/review.ts',
    // the gateway's enforcement: bearer and Host checks, tool selection, path refusals, readable sets, the push plan
    'src/gateway/serving/guard.ts',
    'src/gateway/tools/select.ts',
    'src/gateway/tools/paths.ts',
    'src/gateway/reads/tree-index.ts',
    'src/gateway/push/push-plan.ts',
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
