/**
 * The verifier against random histories (see ./model/histories.ts): never `success` when the ground truth
 * holds a violation, and `success` whenever nothing broke a perimeter and GitHub answered. A short run here;
 * `npm run model-check -- --runs N` runs the long one and prints its figures.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { histories, modelStandIn, play } from './model/histories.js';

const RUNS = Number(process.env.MODEL_RUNS ?? 25);

describe('verifyJob on random histories', () => {
  let standIn: Awaited<ReturnType<typeof modelStandIn>>;
  beforeAll(async () => {
    standIn = await modelStandIn();
  });
  afterAll(() => standIn.stop());

  it(
    'never says success when a violation happened, and says it when none did and nothing failed',
    { timeout: 600_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(histories, async (history) => {
          const { verdict, truth, faulted } = await play(history, standIn);
          const said = `${verdict.state}: ${[...verdict.violations.map((v) => v.message), ...verdict.unchecked].join(' | ')}`;
          if (truth.violations.length > 0)
            expect(verdict.state, `truth: ${truth.violations.join(', ')}; verifier ${said}`).not.toBe(
              'success',
            );
          else if (!faulted) expect(verdict.state, `verifier ${said}`).toBe('success');
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    },
  );
});
