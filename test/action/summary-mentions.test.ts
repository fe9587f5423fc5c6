/**
 * Agent text in a summary mentions nobody and links nowhere (issue #42), as a runner runs the built bundles:
 * a staged change set altered to add a file whose name holds an `@mention` and links is refused by the apply
 * job, whose job summary names the path through the one neutraliser (src/verify/receipts/escape.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FILES, text, type ActionRunner, type Job } from '@perimeter/test-rigs';
import { readChangeSet } from '../../src/github/staged/change-set.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { StagedUpstream } from '../../src/github/staged/staged-upstream.js';
import { jobSuite } from './support/suite.js';

const BOT = 'github-actions[bot]';
const { started } = jobSuite({
  files: FILES,
  inputs: { perimeters: 'implementer', writes: 'stage' },
  contents: 'read',
  statuses: 'none',
  checks: 'none',
  actors: [BOT],
});

const runners: ActionRunner[] = [];
afterEach(() => {
  for (const runner of runners.splice(0)) runner.dispose();
});

// a path cannot hold `//`, so no URL with a scheme: a mention, a www autolink and an e-mail autolink
const PATH = 'docs/@octocat www.evil.example mail@evil.example.md';

/** The agent, root on its runner, adds PATH to the change set before post uploads it, every SHA made to match. */
async function tamper(j: Job): Promise<void> {
  const file = j.runner.main!.state.stagePath!;
  const upstream = createOctokitUpstream({
    token: j.token,
    owner: 'octo',
    repo: 'widgets',
    baseUrl: j.gh.url,
  });
  const staged = StagedUpstream.fromChangeSet(
    upstream,
    readChangeSet(JSON.parse(readFileSync(file, 'utf8'))),
  );
  const head = await staged.getBranchHead(j.branch);
  const tree = await staged.createTree((await staged.getCommit(head)).tree, [
    { path: PATH, mode: '100644', content: 'hello\n' },
  ]);
  await staged.updateBranch(j.branch, await staged.createCommit('Docs', tree, [head]));
  writeFileSync(file, JSON.stringify(staged.changeSet()));
}

describe('the apply job summary', { timeout: 300_000 }, () => {
  describe('when a refused path holds a mention and links', () => {
    it('shows the path as written, mentioning nobody and linking nowhere', async () => {
      const j = await started();
      const agent = await j.agent('implementer');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: { message: 'Count', files: [{ path: 'src/count.ts', content: 'export const n = 1;\n' }] },
      });
      expect(pushed.isError, text(pushed)).toBeFalsy();
      await tamper(j);
      expect((await j.post()).exitCode).toBe(0);
      await j.end();

      const runner = j.laterJob('apply', 'apply', {
        token: j.tokens[BOT]!,
        inputs: {
          record: j.runner.main!.outputs.record!,
          'agent-job': 'implement',
          perimeters: 'implementer',
        },
      });
      runners.push(runner);
      const applied = await runner.runMain();
      expect(applied.exitCode).toBe(1);
      expect(applied.summary).toContain('Refused, nothing applied');
      // no mention, no bare link, no www autolink, in the markdown or once its entities are read back
      const read = applied.summary.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
      for (const shown of [applied.summary, read]) {
        expect(shown).not.toMatch(/@octocat/);
        expect(shown).not.toMatch(/mail@evil/);
        expect(shown).not.toMatch(/www\.evil/);
      }
      // what a reader sees: the comments render as nothing
      expect(read.replace(/<!-- -->/g, '')).toContain(PATH);
    });
  });
});
