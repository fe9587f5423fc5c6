/**
 * The gateway's own view, model-based: random sequences of pushes while someone else pushes to the same
 * branch between the gateway's read and write, and while GitHub loses answers (a ref update that lands but
 * answers too late, one that is dropped before it lands, a 502). Whatever happens, what the gateway tells the
 * agent, what its ledger records and what the branch holds agree: a push answered with a commit is on the
 * branch exactly once and in the ledger; a refused one left nothing; and the verifier, given that ledger,
 * attributes every commit rightly and passes the job.
 */
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/index.js';
import { readLedgerFacts } from '../../src/verify/index.js';
import { compilePerimeter, parseConfig } from '../../src/policy/index.js';
import { snapshotRefs, verifyJob } from '../../src/verify/index.js';
import { gitText } from '@perimeter/fake-github';
import { LONG, runs, windowOpens } from '@perimeter/test-rigs';
import { answerOf, callTool, OWNER, REPO, startStand, textOf, type Stand } from './support/stand.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["src/**"]
    write: ["src/**"]
`;
const PATHS = ['src/a.ts', 'src/b.ts', 'src/c/d.ts'];

type Step = {
  ours: string[];
  theirs: string[] | null;
  loss: 'none' | 'late-answer' | 'dropped' | 'bad-gateway';
};

const steps = fc.array(
  fc.record({
    ours: fc.subarray(PATHS, { minLength: 1 }),
    theirs: fc.option(fc.subarray(PATHS, { minLength: 1 }), { freq: 2 }),
    loss: fc.constantFrom(
      'none' as const,
      'none' as const,
      'late-answer' as const,
      'dropped' as const,
      'bad-gateway' as const,
    ),
  }),
  { minLength: 1, maxLength: 5 },
);

describe("the gateway's view of its pushes", () => {
  let stand: Stand;
  let dev: Client;
  let round = 0;

  beforeAll(async () => {
    stand = await startStand({
      files: Object.fromEntries(PATHS.map((p) => [p, 'seed\n'])),
      config: CONFIG,
      proxy: true,
      timeouts: 'on-hold',
      upstream: { retryBaseMs: 5, readRetries: 2 },
    });
    dev = await stand.connect('dev');
  });
  afterAll(async () => stand.close());

  it(
    'agrees with the branch and the ledger, whatever GitHub loses or whoever pushes between',
    { timeout: LONG ? 3_600_000 : 600_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(steps, async (sequence: Step[]) => {
          const startedAt = await windowOpens();
          const up = stand.upstream;
          const start = await snapshotRefs(up);
          const answered: string[] = [];
          for (const step of sequence) {
            const id = `r${++round}`;
            stand.fake.clearFaults();
            if (step.theirs) {
              stand.fake.injectFault({
                kind: 'move-ref',
                repo: `${OWNER}/${REPO}`,
                ref: 'main',
                files: Object.fromEntries(step.theirs.map((p) => [p, `theirs ${id}\n`])),
                message: `theirs ${id}`,
                actor: 'teammate',
              });
            }
            // the gateway's request times out the moment the proxy holds it (the harness's clock)
            if (step.loss === 'late-answer') stand.proxy!.holdAnswers(/^PATCH .*\/git\/refs\//);
            if (step.loss === 'dropped') stand.proxy!.holdRequests(/^PATCH .*\/git\/refs\//);
            if (step.loss === 'bad-gateway')
              stand.fake.injectFault({ kind: 'status', status: 502, count: 1, route: /^PATCH .*git\/refs/ });
            const message = `ours ${id}`;
            const result = await callTool(dev, 'push_files', {
              message,
              files: step.ours.map((path) => ({ path, content: `ours ${id}\n` })),
            });
            stand.proxy!.clearHolds();
            const landed = (await gitText(stand.repoDir, ['log', '--format=%H %s', 'main']))
              .split('\n')
              .filter((line) => line.endsWith(` ${message}`))
              .map((line) => line.split(' ')[0]);
            expect(landed.length, 'a push lands at most once').toBeLessThanOrEqual(1);
            const commit = (answerOf(result) as { commit?: string | null } | undefined)?.commit;
            // A ref update GitHub takes up only after the gateway gave up on it ('dropped') may land at any
            // moment after the answer: no claim about it here (see the direct commits below).
            if (result.isError) {
              if (step.loss !== 'dropped')
                expect(landed, `refused, yet landed: ${textOf(result)}`).toEqual([]);
            } else {
              expect(landed, textOf(result)).toEqual([commit]);
              answered.push(commit as string);
            }
          }
          stand.fake.clearFaults();
          // the gateway is still running: its chain verifies, the closing record comes at its stop
          expect((await verifyLedger(stand.ledgerPath, stand.ledgerKey)).ok).toBe(true);
          const ledger = { ...(await readLedgerFacts(stand.ledgerPath, stand.ledgerKey)), ok: true };
          for (const sha of answered) expect(ledger.commits).toContain(sha);
          const verdict = await verifyJob({
            upstream: up,
            branch: 'main',
            start,
            end: await snapshotRefs(up),
            perimeters: parseConfig(CONFIG).perimeters.map((spec) => compilePerimeter(spec)),
            ledger,
            directPushes: 'check',
            startedAt,
          });
          expect(verdict.state, JSON.stringify(verdict.unchecked)).toBe('success');
          expect(new Set(verdict.commits.gateway)).toEqual(new Set(answered));
          // someone else's commit lands when the gateway's ref write reaches GitHub (a 502 stops it first)
          const theirs = (
            await gitText(stand.repoDir, ['log', '--format=%s', `${start['refs/heads/main']}..main`])
          )
            .split('\n')
            .filter((line) => line.startsWith('theirs '));
          // theirs are a teammate's: listed, not judged, and never counted as this job's direct pushes
          expect(verdict.commits.others).toHaveLength(theirs.length);
          // A ref update GitHub takes up only after the gateway gave up on it (the 'dropped' loss) may still
          // land: the gateway said it failed and its ledger has no such commit, so it counts as direct. Any
          // other direct commit would be a gateway commit the ledger lost.
          for (const sha of verdict.commits.direct) {
            const subject = (await gitText(stand.repoDir, ['log', '-1', '--format=%s', sha])).trim();
            expect(subject, 'a direct commit that no abandoned push explains').toMatch(/^ours r\d+$/);
          }
        }),
        { numRuns: Number(process.env.MODEL_RUNS ?? runs(5, 50)), endOnFailure: true },
      );
    },
  );
});
