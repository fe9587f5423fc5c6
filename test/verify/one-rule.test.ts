/**
 * One rule decides a commit everywhere: on random commits and random perimeter sets, the receipt (verifyJob,
 * which post, the verify job and `perimeter audit` run), apply (judgeChangeSet), the pull-request gate
 * (verifyPullRequest) and `perimeter replay` (replayCommits) each gather the commit from the stand-in their own
 * way and reach the same verdict: allowed when one perimeter may make the whole commit, refused otherwise.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compiledPerimeter,
  runs,
  sample,
  setRef,
  startStandIn,
  windowOpens,
  type StandIn,
} from '@perimeter/test-rigs';
import { judgeChangeSet } from '../../src/apply/apply-changes.js';
import { blobContents, listCommitChanges } from '../../src/cli/git.js';
import { replayCommits } from '../../src/cli/replay-judge.js';
import { StagedUpstream } from '../../src/github/staged/staged-upstream.js';
import type { Upstream } from '../../src/github/upstream.js';
import type { Perimeter } from '../../src/policy/index.js';
import { createSecretFilter } from '../../src/safety/index.js';
import {
  blobFactsOf,
  snapshotRefs,
  verifyJob,
  verifyPullRequest,
  type BlobFacts,
} from '../../src/verify/index.js';

const PATHS = ['src/a.ts', 'src/b.ts', 'src/deep/c.ts', 'test/a.test.ts', 'docs/x.md', 'CODEOWNERS'];
// mostly globs that cover the commit's paths between them, so that the interesting case (each path some
// perimeter's, the commit no one perimeter's, or over its limits) comes up in a few runs
const WRITES = [
  ['src/**'],
  ['test/**'],
  ['src/**', 'test/**', 'docs/**'],
  ['**'],
  ['src/deep/**', 'docs/**'],
];

const file = fc.record({
  path: fc.constantFrom(...PATHS),
  size: fc.integer({ min: 1, max: 60 }),
  // about one file in four holds a credential
  secret: fc.constantFrom(false, false, false, true),
});
const commitArb = fc.uniqueArray(file, { minLength: 1, maxLength: 4, selector: (f) => f.path });
const perimeterArb = fc.record({
  write: fc.constantFrom(...WRITES),
  filesPerPush: fc.integer({ min: 1, max: 4 }),
  bytesPerFile: fc.integer({ min: 20, max: 80 }),
  bytesPerPush: fc.integer({ min: 40, max: 200 }),
  allowProtected: fc.boolean(),
});
const setArb = fc.array(perimeterArb, { minLength: 2, maxLength: 3 });

const contentOf = (f: { size: number; secret: boolean }, seed: number): string =>
  f.secret ? `token = "${sample.github(`s${seed}`)}"\n` : `${'x'.repeat(f.size - 1)}\n`;

describe('one rule for every commit', () => {
  let s: StandIn;
  let up: Upstream;
  let run = 0;
  const filter = createSecretFilter();

  beforeAll(async () => {
    s = await startStandIn({ 'README.md': 'r\n', 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    up = s.upstream();
  });
  afterAll(() => s.stop());

  it('reaches the same verdict in the receipt, apply, the gate and replay', async () => {
    await fc.assert(
      fc.asyncProperty(commitArb, setArb, async (files, specs) => {
        const branch = `agent/run-${++run}`;
        const perimeters: Perimeter[] = specs.map((spec, i) =>
          compiledPerimeter({
            name: `p${i}`,
            read: ['**'],
            write: spec.write,
            allowProtected: spec.allowProtected ? ['**'] : [],
            limits: {
              filesPerPush: spec.filesPerPush,
              bytesPerFile: spec.bytesPerFile,
              bytesPerPush: spec.bytesPerPush,
            },
          }),
        );
        await setRef(s.dir, `refs/heads/${branch}`, s.seed, 'github-actions[bot]');
        const startedAt = await windowOpens();
        const start = await snapshotRefs(up);
        const entries = files.map((f) => ({
          path: f.path,
          mode: '100644' as const,
          content: contentOf(f, run),
        }));

        // pushed around the gateway, through the Git Data API: what post and the verify job see
        const tree = await up.createTree((await up.getCommit(s.seed)).tree, entries);
        const sha = await up.createCommit('around the gateway', tree, [s.seed]);
        await up.updateBranch(branch, sha);
        const receipt = await verifyJob({
          upstream: s.upstream(),
          branch,
          start,
          end: await snapshotRefs(up),
          perimeters,
          ledger: null,
          ledgerExpected: false,
          directPushes: 'check',
          startedAt,
          filter,
        });
        expect(receipt.state).not.toBe('error');

        // the same commit staged: what apply judges
        const staged = `stage/run-${run}`;
        await setRef(s.dir, `refs/heads/${staged}`, s.seed, 'github-actions[bot]');
        const staging = new StagedUpstream(up, staged);
        const stagedTree = await staging.createTree((await staging.getCommit(s.seed)).tree, entries);
        await staging.updateBranch(staged, await staging.createCommit('staged', stagedTree, [s.seed]));
        const applied = await judgeChangeSet(up, staging.changeSet()!, perimeters, staged, filter);

        // replay, from the repository's own history
        const read = listCommitChanges(s.dir, `${s.seed}..${sha}`);
        const contents = blobContents(
          s.dir,
          read.commits.flatMap((c) => c.changes.flatMap((x) => (x.kind === 'deleted' ? [] : [x.newSha!]))),
        );
        const facts = new Map<string, BlobFacts>();
        for (const [blob, bytes] of contents) facts.set(blob, await blobFactsOf(bytes, filter));
        const [row] = replayCommits(read.commits, branch, perimeters, (blob) => facts.get(blob));
        const replayed = Object.values(row!.verdicts).some((v) => v.allowed);

        const allowed = receipt.state === 'success';
        expect(applied.violations.length === 0).toBe(allowed);
        expect(replayed).toBe(allowed);

        // the gate, one perimeter at a time (it judges a pull request by the perimeter assigned to it)
        const { number } = await up.createPullRequest({
          title: branch,
          body: '',
          head: branch,
          base: 'main',
          draft: false,
          labels: [],
        });
        const pull = await up.getPullRequest(number);
        for (const perimeter of perimeters) {
          const gate = await verifyPullRequest({
            upstream: up,
            pull,
            commits: await up.listPullRequestCommits(number),
            baseHead: await up.getBranchHead('main'),
            perimeter,
            assignedBy: 'the test',
            filter,
          });
          expect(gate.state === 'success').toBe(row!.verdicts[perimeter.name]!.allowed);
        }
      }),
      { numRuns: runs(10, 60) },
    );
  });
});
