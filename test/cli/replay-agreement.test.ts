import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitText } from '@perimeter/fake-github';
import { compiledPerimeter, startStandIn, type Entry, type StandIn } from '@perimeter/test-rigs';
import { blobContents, listCommitChanges } from '../../src/cli/git.js';
import { NO_FILTER } from '../../src/safety/index.js';
import { replayCommits } from '../../src/cli/replay-judge.js';
import type { Upstream } from '../../src/github/upstream.js';
import { TOOL_NAMES, type Perimeter } from '../../src/policy/index.js';
import { diffTrees, judgeCommit, readBlobFacts, type Change } from '../../src/verify/index.js';

/**
 * replay reads commits from a local git repository and the receipt reads them from GitHub; both must come
 * to the same verdict for every commit and perimeter. Random histories land in the stand-in's bare
 * repository, replay reads that repository with git, and the verify side reads the same commits through
 * the stand-in's API (diffTrees, getBlob) and judges them with verify's judgeCommit.
 */
let s: StandIn;
let upstream: Upstream;
let run = 0;
beforeAll(async () => {
  s = await startStandIn({ 'README.md': 'seed\n' });
  upstream = s.upstream();
});
afterAll(() => s.stop());

const segment = fc.constantFrom('src', 'a', 'b.ts', 'test', '.github');
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
const entry: fc.Arbitrary<Entry> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  {
    weight: 6,
    arbitrary: fc.record({
      mode: fc.constantFrom('100644' as const, '100755' as const, '120000' as const),
      content: fc.string({ unit: fc.constantFrom('x', 'y', '\n'), maxLength: 16 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ mode: '160000' as const, sha: 'c'.repeat(40) }) },
);
const commitEdits = fc.dictionary(path, entry, { maxKeys: 4 });
const perimeterArb = fc.record({
  write: fc.uniqueArray(fc.constantFrom('src/**', '**', 'a', '*.ts', '**/*.ts', '.github/**', 'test/**'), {
    maxLength: 3,
  }),
  branches: fc.option(
    fc.uniqueArray(fc.constantFrom('main', 'agent/**', 'dev'), { minLength: 1, maxLength: 2 }),
    { nil: null },
  ),
  allowProtected: fc.constantFrom([], ['.github/**']),
  tools: fc.constantFrom([...TOOL_NAMES], ['get_file' as const]),
  filesPerPush: fc.integer({ min: 1, max: 5 }),
  bytesPerFile: fc.integer({ min: 1, max: 12 }),
  bytesPerPush: fc.integer({ min: 1, max: 30 }),
});
const history = fc.record({
  rooted: fc.boolean(),
  commits: fc.array(commitEdits, { minLength: 1, maxLength: 4 }),
  perimeters: fc.array(perimeterArb, { minLength: 1, maxLength: 3 }),
  branch: fc.constantFrom('main', 'agent/one', 'dev'),
});

/** The commits on a new branch `ref` in one `git fast-import` (one process, not one per file). */
async function importHistory(ref: string, parent: string | null, commits: Array<Record<string, Entry>>) {
  let stream = '';
  for (const [i, edits] of commits.entries()) {
    stream += `commit refs/heads/${ref}\ncommitter t <t@example.com> ${1_700_000_000 + i} +0000\ndata 1\n${i}\n`;
    if (i === 0 && parent !== null) stream += `from ${parent}\n`;
    for (const [path, entry] of Object.entries(edits)) {
      if (entry === null) stream += `D ${path}\n`;
      else if ('sha' in entry) stream += `M ${entry.mode} ${entry.sha} ${path}\n`;
      else
        stream += `M ${entry.mode} inline ${path}\ndata ${Buffer.byteLength(entry.content)}\n${entry.content}\n`;
    }
  }
  await gitText(s.dir, ['fast-import', '--quiet'], { input: stream });
}

const sorted = (changes: Change[]) => changes.map((c) => JSON.stringify(c)).sort();

/** What the receipt's side reads of one commit from GitHub, and verify's judgement of it per perimeter. */
async function receiptVerdicts(sha: string, branch: string, perimeters: Perimeter[]) {
  const commit = await upstream.getCommit(sha);
  const parent = commit.parents[0] === undefined ? null : (await upstream.getCommit(commit.parents[0])).tree;
  const changes = await diffTrees(upstream, parent, commit.tree);
  const arriving = changes.filter((c) => c.kind !== 'deleted' && c.newMode !== '160000');
  const { facts } = await readBlobFacts(upstream, arriving, NO_FILTER);
  const label = sha.slice(0, 7);
  const verdicts = perimeters.map((p) =>
    judgeCommit({ label, changes, blob: (blob) => facts.get(blob) }, branch, [p])
      .violations.map((v) => v.message)
      .sort(),
  );
  return { changes, verdicts };
}

describe('perimeter replay and the receipt', () => {
  describe('when random histories are judged by random perimeters', () => {
    it('read the same changes and reach the same verdict for every commit and perimeter', async () => {
      await fc.assert(
        fc.asyncProperty(history, async ({ rooted, commits, perimeters: specs, branch }) => {
          const ref = `run-${++run}`;
          await importHistory(ref, rooted ? s.seed : null, commits);
          const perimeters = specs.map(({ filesPerPush, bytesPerFile, bytesPerPush, ...rest }, i) =>
            compiledPerimeter({
              ...rest,
              tools: [...rest.tools],
              allowProtected: [...rest.allowProtected],
              name: `p${i}`,
              limits: { filesPerPush, bytesPerFile, bytesPerPush },
            }),
          );

          const read = listCommitChanges(s.dir, `${s.seed}..${ref}`);
          const contents = blobContents(
            s.dir,
            read.commits.flatMap((c) =>
              c.changes.filter((x) => x.kind !== 'deleted' && x.newMode !== '160000').map((x) => x.newSha!),
            ),
          );
          const rows = replayCommits(read.commits, branch, perimeters, (sha) => {
            const bytes = contents.get(sha);
            return bytes === undefined ? undefined : { size: bytes.byteLength, credentials: [] };
          });
          expect(rows).toHaveLength(commits.length);

          for (const [i, row] of rows.entries()) {
            const receipt = await receiptVerdicts(row.sha, branch, perimeters);
            expect(sorted(read.commits[i]!.changes)).toEqual(sorted(receipt.changes));
            for (const [j, perimeter] of perimeters.entries()) {
              const replayed = row.verdicts[perimeter.name]!;
              const label = row.sha.slice(0, 7);
              expect(replayed.refused.map((r) => `${r.path ?? label}: ${r.rule}`).sort()).toEqual(
                receipt.verdicts[j],
              );
              expect(replayed.allowed).toBe(receipt.verdicts[j]!.length === 0);
            }
          }
        }),
        { numRuns: 30 },
      );
    }, 240_000);
  });
});
