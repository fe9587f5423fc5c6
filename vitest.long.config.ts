import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:long`: the long runs CI adds to `npm test`. The `*.long.test.ts` files (a whole session's
 * pushes) and, with PERIMETER_LONG=1, the files whose properties take `runs(short, long)` from the test rigs,
 * played with their long count. The verifier's model check has a script of its own: `npm run model-check`.
 */
export default defineConfig({
  test: {
    ...base.test,
    include: [
      'test/**/*.long.test.ts',
      'test/gateway/staged-writes.test.ts',
      'test/hardening/gateway-model.test.ts',
      'test/policy/git-glob.test.ts',
      'test/verify/model-verifier.test.ts',
      'test/verify/one-rule.test.ts',
    ],
    exclude: ['**/node_modules/**'],
    env: { PERIMETER_LONG: '1' },
    testTimeout: 1_800_000,
  },
});
