/**
 * Staged writes over two jobs, as a runner runs the built bundles: an agent job whose token may only read
 * (writes: stage), then the apply sub-action on a fresh runner with a write token and nothing from the first
 * job but the record artifact's name.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { gitText } from '@perimeter/fake-github';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answerOf, FILES, text, type ActionRunner, type Job } from '@perimeter/test-rigs';
import { readChangeSet } from '../../src/github/staged/change-set.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { StagedUpstream } from '../../src/github/staged/staged-upstream.js';
import { jobSuite } from './support/suite.js';

const BOT = 'github-actions[bot]';
// The agent job as docs/staged-writes.md writes it: its token may read the repository and nothing else.
const { started } = jobSuite({
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

/** The agent job: main, one push through the gateway read back, post. Returns the staged commit. */
async function agentJob(j: Job): Promise<string> {
  const agent = await j.agent('implementer');
  const pushed = await agent.callTool({
    name: 'push_files',
    arguments: {
      message: 'Count only truthy widgets',
      files: [
        {
          path: 'src/count.ts',
          content: 'export const count = (xs: unknown[]) => xs.filter(Boolean).length;\n',
        },
      ],
    },
  });
  expect(pushed.isError, text(pushed)).toBeFalsy();
  const answer = answerOf(pushed as CallToolResult) as { commit: string; staged?: boolean };
  expect(answer.staged).toBe(true);
  const read = await agent.callTool({ name: 'get_file', arguments: { path: 'src/count.ts' } });
  expect(text(read)).toContain('xs.filter(Boolean)');
  const listed = await agent.callTool({ name: 'list_commits', arguments: { path: 'src' } });
  expect(text(listed)).toContain(answer.commit);
  return answer.commit;
}

/** The apply job on a fresh runner, with a write token and the record's name. */
async function applyJob(
  j: Job,
  inputs: Record<string, string> = {},
): Promise<Awaited<ReturnType<ActionRunner['runMain']>>> {
  const runner = j.laterJob('apply', 'apply', {
    token: j.tokens[BOT]!,
    inputs: { record: j.runner.main!.outputs.record!, ...inputs },
  });
  runners.push(runner);
  return runner.runMain();
}

describe('staged writes over two jobs', { timeout: 300_000 }, () => {
  it('lands exactly the commit the read-only agent job staged and read back', async () => {
    const j = await started();
    const start = await j.head();
    const staged = await agentJob(j);
    // nothing reached GitHub, and the job's token could not have sent it by another route
    expect(await j.head()).toBe(start);
    await expect(j.push({ 'src/around.ts': 'x\n' })).rejects.toThrow();
    const post = await j.post();
    expect(post.exitCode, post.log + post.stderr).toBe(0);
    expect(post.log).toContain('staged.json');
    // the job's token may post no status (statuses: none): main and post posted none, apply's is the receipt
    expect(post.log).toContain('the receipt comes from the apply job');
    expect(await j.statuses(start, j.tokens[BOT])).toEqual([]);

    const applied = await applyJob(j);
    expect(applied.exitCode, applied.log + applied.stderr).toBe(0);
    const head = await j.head();
    expect(applied.outputs.head).toBe(head);
    expect((await gitText(j.bare, ['rev-parse', `${head}^`])).trim()).toBe(start);
    expect(await gitText(j.bare, ['log', '-1', '--format=%s', head])).toBe('Count only truthy widgets\n');
    const stagedSet = readChangeSet(JSON.parse(readFileSync(j.runner.main!.state.stagePath!, 'utf8')));
    expect(stagedSet.commits.map((c) => c.sha)).toEqual([staged]);
    expect((await gitText(j.bare, ['rev-parse', `${head}^{tree}`])).trim()).toBe(stagedSet.commits[0]!.tree);
    const [status] = await j.statuses(head, j.tokens[BOT]);
    expect(status).toMatchObject({ state: 'success', context: 'perimeter' });
    expect(status!.description).toMatch(/^1 staged commit\(s\) applied: 1 path\(s\), all in scope/);
  });

  it.each([
    ['.github/workflows/x.yml', 'a workflow'],
    ['docs/roadmap.md', 'a file outside the write globs'],
  ])('lands nothing from a change set altered to add %s (%s), and fails naming it', async (path) => {
    const j = await started();
    const start = await j.head();
    await agentJob(j);
    // an agent with sudo rewrites the change set before post uploads it, with every SHA made to match
    const file = j.runner.main!.state.stagePath!;
    const github = createOctokitUpstream({
      token: j.token,
      owner: 'octo',
      repo: 'widgets',
      baseUrl: j.gh.url,
    });
    const tamper = StagedUpstream.fromChangeSet(
      github,
      readChangeSet(JSON.parse(readFileSync(file, 'utf8'))),
    );
    const head = await tamper.getBranchHead(j.branch);
    const tree = await tamper.createTree((await tamper.getCommit(head)).tree, [
      { path, mode: '100644', content: 'on: push\n' },
    ]);
    await tamper.updateBranch(j.branch, await tamper.createCommit('tidy up', tree, [head]));
    writeFileSync(file, JSON.stringify(tamper.changeSet()));
    const post = await j.post();
    expect(post.exitCode, post.log + post.stderr).toBe(0);

    const applied = await applyJob(j);
    expect(applied.exitCode).toBe(1);
    expect(applied.log + applied.stderr).toContain(path);
    expect(await j.head()).toBe(start);
    const [status] = await j.statuses(start, j.tokens[BOT]);
    expect(status).toMatchObject({ state: 'failure', description: expect.stringContaining(path) });
  });

  describe('when config-ref is a branch the job may write, or its head commit', () => {
    // implementer may be bound to "agent/**" and "staging": either could widen its own perimeter
    const files = {
      ...FILES,
      'perimeters.yml': FILES['perimeters.yml']!.replace(
        '    write: ["src/**"]\n',
        '    write: ["src/**"]\n    branches: ["agent/**", "staging"]\n',
      ),
    };
    it.each([
      ['staging', 'names branch "staging"'],
      ['the head of the bound branch', 'is the head of branch "agent/work"'],
    ])('refuses %s and lands nothing', async (which, says) => {
      const j = await started({ files });
      const start = await j.head();
      await agentJob(j);
      expect((await j.post()).exitCode).toBe(0);
      await gitText(j.bare, ['branch', 'staging', 'main']);
      const configRef = which === 'staging' ? 'staging' : start.slice(0, 12);
      const applied = await applyJob(j, { 'config-ref': configRef });
      expect(applied.exitCode).toBe(1);
      expect(applied.log + applied.stderr).toContain(
        `config-ref: ${JSON.stringify(configRef)} ${says}, and this job may write that branch`,
      );
      expect(await j.head()).toBe(start);
    });
  });
});
