/**
 * The verifier against random histories (see ./model/histories.ts): never `success` when the ground truth
 * holds a violation, and `success` whenever nothing broke a perimeter and GitHub answered. A short run here;
 * `npm run model-check -- --runs N` runs the long one and prints its figures.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { histories, modelStandIn, play, runs, type Op } from '@perimeter/test-rigs';

const RUNS = Number(process.env.MODEL_RUNS ?? runs(10, 25));

describe('verifyJob on random histories', () => {
  let standIn: Awaited<ReturnType<typeof modelStandIn>>;
  beforeAll(async () => {
    standIn = await modelStandIn();
  });
  afterAll(() => standIn.stop());

  // The check is only as good as its ground truth: pin what it must see.
  it.each([
    [
      'a symlink in a merged side commit',
      [{ kind: 'merge', files: [{ path: 'src/l', content: '1\n', link: true }] }],
      ['link src/l'],
    ],
    [
      'a file added and removed again',
      [
        {
          kind: 'push',
          ref: 'refs/heads/agent/x',
          actor: 'a',
          files: [{ path: 'CLAUDE.md', content: '1\n' }],
        },
        {
          kind: 'push',
          ref: 'refs/heads/agent/x',
          actor: 'a',
          files: [{ path: 'CLAUDE.md', content: null }],
        },
      ],
      ['path CLAUDE.md', 'path CLAUDE.md'],
    ],
    [
      'the branch deleted and created again',
      [
        { kind: 'delete', ref: 'refs/heads/agent/x' },
        { kind: 'create', ref: 'refs/heads/agent/x', at: 'start' },
      ],
      ['refs/heads/agent/x deleted'],
    ],
    [
      'a tag created and deleted',
      [
        { kind: 'create', ref: 'refs/tags/t', at: 'start' },
        { kind: 'delete', ref: 'refs/tags/t' },
      ],
      [],
    ],
    [
      'an allowed commit through the gateway',
      [{ kind: 'gateway', files: [{ path: 'src/a.ts', content: '2\n' }] }],
      [],
    ],
  ] as const)('has a ground truth that sees %s', async (_, ops, violations) => {
    const { truth } = await play({ ops: ops as unknown as Op[], faults: [] }, standIn);
    expect(truth.violations).toEqual(violations);
  });

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
