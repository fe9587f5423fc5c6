/**
 * Staged writes over two jobs, as a runner runs the built bundles: an agent job whose token may only read
 * (writes: stage), then the apply sub-action on a fresh runner with a write token and nothing from the first
 * job but the record artifact's name.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { decodeHTML } from 'entities';
import { afterEach, describe, expect, it } from 'vitest';
import { commitToBare, gitText } from '@perimeter/fake-github';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answerOf, FILES, REPOSITORY, RUN_ID, text, type ActionRunner, type Job } from '@perimeter/test-rigs';
import { readChangeSet } from '../../src/github/staged/change-set.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { StagedUpstream, type StagedChangeSet } from '../../src/github/staged/staged-upstream.js';
import { jobSuite } from './support/suite.js';

const BOT = 'github-actions[bot]';
const TEAMMATE = 'mona';
// The agent job as docs/staged-writes.md writes it: its token may read the repository and nothing else.
const { create, started } = jobSuite({
  inputs: { perimeters: 'implementer', writes: 'stage' },
  contents: 'read',
  statuses: 'none',
  checks: 'none',
  actors: [BOT, TEAMMATE],
});

const runners: ActionRunner[] = [];
afterEach(() => {
  for (const runner of runners.splice(0)) runner.dispose();
});

/** GitHub as the agent's job token sees it: it may read. */
function upstreamOf(j: Job) {
  return createOctokitUpstream({ token: j.token, owner: 'octo', repo: 'widgets', baseUrl: j.gh.url });
}

/**
 * An agent with sudo rewrites the change set before post uploads it: a commit adding `path` on top of what it
 * staged, every SHA made to match.
 */
async function tamperAdding(j: Job, path: string): Promise<void> {
  const file = j.runner.main!.state.stagePath!;
  const tamper = StagedUpstream.fromChangeSet(
    upstreamOf(j),
    readChangeSet(JSON.parse(readFileSync(file, 'utf8'))),
  );
  const head = await tamper.getBranchHead(j.branch);
  const tree = await tamper.createTree((await tamper.getCommit(head)).tree, [
    { path, mode: '100644', content: 'on: push\n' },
  ]);
  await tamper.updateBranch(j.branch, await tamper.createCommit('tidy up', tree, [head]));
  writeFileSync(file, JSON.stringify(tamper.changeSet()));
}

/** A change set staged on `branch` (its head as GitHub has it), changing src/count.ts. */
async function stagedOn(j: Job, branch: string): Promise<StagedChangeSet> {
  const staging = new StagedUpstream(upstreamOf(j), branch);
  const head = await staging.getBranchHead(branch);
  const tree = await staging.createTree((await staging.getCommit(head)).tree, [
    { path: 'src/count.ts', mode: '100644', content: 'export const count = () => 0;\n' },
  ]);
  await staging.updateBranch(branch, await staging.createCommit('Count nothing', tree, [head]));
  return staging.changeSet()!;
}

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

/**
 * The apply job on a fresh runner, with a write token, the record's name and the perimeters the workflow
 * names for the agent job (`perimeters: null` leaves the input out).
 */
async function applyJob(
  j: Job,
  inputs: Record<string, string | null> = {},
): Promise<Awaited<ReturnType<ActionRunner['runMain']>>> {
  // apply needs the agent job: GitHub has completed it (and its runtime token) before apply starts
  if (j.record?.status !== 'completed') await j.end();
  const given = {
    record: j.runner.main!.outputs.record!,
    'agent-job': 'implement',
    perimeters: 'implementer',
    ...inputs,
  };
  const runner = j.laterJob('apply', 'apply', {
    token: j.tokens[BOT]!,
    inputs: Object.fromEntries(
      Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== null),
    ),
  });
  runners.push(runner);
  return runner.runMain();
}

/**
 * GitHub's times have whole seconds: waits until the clock (the stand-in's, this process's) is in the next
 * one, so what happens after is later on GitHub's record too. An order, not a measure of speed.
 */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_050 - (Date.now() % 1_000)));

/** The agent's own change set for the record's name: in scope, so only the artifact's origin can refuse it. */
async function forgedRecord(j: Job): Promise<Record<string, string>> {
  return { 'staged.json': JSON.stringify(await stagedOn(j, j.branch)) };
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
    // its summary says the work waits for apply, not that nothing changed
    const summary = decodeHTML(post.summary);
    expect(summary).toContain('Nothing pushed during the job: 1 commit staged for perimeter/apply');
    expect(summary).not.toContain('No changes during the job');
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
    ['test/count.test.ts', 'a file of test-author, which the agent job did not expose'],
  ])('lands nothing from a change set altered to add %s (%s), and fails naming it', async (path) => {
    const j = await started();
    const start = await j.head();
    await agentJob(j);
    await tamperAdding(j, path);
    const post = await j.post();
    expect(post.exitCode, post.log + post.stderr).toBe(0);

    const applied = await applyJob(j);
    expect(applied.exitCode).toBe(1);
    expect(applied.log + applied.stderr).toContain(path);
    expect(await j.head()).toBe(start);
    const [status] = await j.statuses(start, j.tokens[BOT]);
    expect(status).toMatchObject({ state: 'failure', description: expect.stringContaining(path) });
  });

  it('refuses to guess the perimeters: without the input it lands nothing, not even in-scope files', async () => {
    const j = await started();
    const start = await j.head();
    await agentJob(j);
    await tamperAdding(j, 'test/count.test.ts');
    expect((await j.post()).exitCode).toBe(0);
    const applied = await applyJob(j, { perimeters: null });
    expect(applied.exitCode).toBe(1);
    expect(applied.log).toContain(
      "perimeters: required: the perimeters the agent job exposed, as its main step's input",
    );
    expect(applied.stderr).not.toMatch(/\n\s+at /);
    expect(await j.head()).toBe(start);
  });

  it('refuses a change set naming another branch, lands nothing anywhere, and says why', async () => {
    const j = await create();
    await gitText(j.bare, ['branch', 'release/1.0', 'main']);
    expect((await j.main()).exitCode).toBe(0);
    const start = await j.head();
    await agentJob(j);
    // staged on release/1.0, which implementer may work on: only apply's own branch input may say where
    writeFileSync(j.runner.main!.state.stagePath!, JSON.stringify(await stagedOn(j, 'release/1.0')));
    expect((await j.post()).exitCode).toBe(0);

    const applied = await applyJob(j);
    expect(applied.exitCode).toBe(1);
    const why = 'the change set names branch "release/1.0", and this job applies to "agent/work" only';
    expect(applied.log).toContain(why);
    expect(await j.head()).toBe(start);
    expect(await j.head('release/1.0')).toBe(start);
    const [status] = await j.statuses(start, j.tokens[BOT]);
    expect(status).toMatchObject({ state: 'failure', description: `Refused, nothing applied: ${why}` });
  });

  it("opens no pull request from a change set sitting on another line of history (its base is GitHub's head)", async () => {
    const j = await create();
    await gitText(j.bare, ['branch', 'side', 'main']);
    const side = await commitToBare(j.bare, 'side', { CODEOWNERS: '* @rogue\n' }, 'Owners', {
      actor: TEAMMATE,
    });
    expect((await j.main()).exitCode).toBe(0);
    const start = await j.head();
    await agentJob(j);
    // the set names the bound branch, but sits on side's head: its CODEOWNERS would ride along unjudged
    const set = { ...(await stagedOn(j, 'side')), branch: j.branch };
    writeFileSync(j.runner.main!.state.stagePath!, JSON.stringify(set));
    expect((await j.post()).exitCode).toBe(0);

    const applied = await applyJob(j, { mode: 'pull-request', 'pull-request-branch': 'perimeter/staged/x' });
    expect(applied.exitCode).toBe(1);
    expect(applied.log).toContain(`the change set sits on ${side}, which "agent/work"`);
    expect(await gitText(j.bare, ['branch', '--list', 'perimeter/*'])).toBe('');
    expect(await j.head()).toBe(start);
    const [status] = await j.statuses(start, j.tokens[BOT]);
    expect(status).toMatchObject({ state: 'error', description: expect.stringContaining(side) });
  });

  it("lists a teammate's push during the job as theirs: the token's refused marker proves it wrote nothing", async () => {
    const j = await started();
    await agentJob(j);
    const theirs = await j.push(
      { 'docs/roadmap.md': '# Roadmap\n\nBy a teammate.\n' },
      { as: TEAMMATE, message: 'Roadmap' },
    );
    const post = await j.post();
    expect(post.exitCode, post.log + post.stderr).toBe(0);
    expect(post.summary).toMatch(/^## ✅ Perimeter: success/);
    expect(post.summary).toContain('Changed by others (not judged)');
    expect(post.summary).toContain(`| ${TEAMMATE} | <code>refs/heads/agent/work</code> | push |`);

    const applied = await applyJob(j);
    expect(applied.exitCode, applied.log + applied.stderr).toBe(0);
    const head = await j.head();
    expect((await gitText(j.bare, ['rev-parse', `${head}^`])).trim()).toBe(theirs);
    const [status] = await j.statuses(head, j.tokens[BOT]);
    expect(status).toMatchObject({
      state: 'success',
      description: expect.stringMatching(
        new RegExp(`^1 staged commit\\(s\\) applied on top of ${theirs.slice(0, 7)}: 1 path`),
      ),
    });
  });

  describe("when the agent uploads under the record's name", () => {
    it('refuses an artifact uploaded before post, and post fails loudly on the taken name', async () => {
      const j = await started();
      const start = await j.head();
      await agentJob(j);
      const name = j.runner.main!.outputs.record!;
      await j.agentUploads(name, await forgedRecord(j));
      await nextSecond();
      const post = await j.post();
      expect(post.exitCode, post.log + post.stderr).toBe(1);
      expect(post.log).toContain(
        `the record was not uploaded: the name ${name} was already taken in this run`,
      );

      const applied = await applyJob(j);
      expect(applied.exitCode).toBe(1);
      expect(applied.log).toContain(
        `is not the agent job's record: it was created at ${new Date(Date.now()).toISOString().slice(0, 10)}`,
      );
      expect(applied.log).toContain('before the steps of job "implement" ahead of its post steps ended');
      expect(await j.head()).toBe(start);
      const [status] = await j.statuses(start, j.tokens[BOT]);
      expect(status).toMatchObject({ state: 'error', description: expect.stringContaining(name) });
    });

    it('refuses a record deleted and replaced after post uploaded it', async () => {
      const j = await started();
      const start = await j.head();
      await agentJob(j);
      const forged = await forgedRecord(j);
      expect((await j.post()).exitCode).toBe(0);
      const name = j.runner.main!.outputs.record!;
      await nextSecond();
      // before the job ends: the honest record deleted through the REST API, the agent's under its name
      const headers = { authorization: `Bearer ${j.token}` };
      const api = `${j.gh.url}/repos/${REPOSITORY}/actions`;
      const listed = (await (
        await fetch(`${api}/runs/${RUN_ID}/artifacts?name=${name}`, { headers })
      ).json()) as {
        artifacts: Array<{ id: number }>;
      };
      const deleted = await fetch(`${api}/artifacts/${listed.artifacts[0]!.id}`, {
        method: 'DELETE',
        headers,
      });
      expect(deleted.status).toBe(204);
      await j.agentUploads(name, forged);

      const applied = await applyJob(j);
      expect(applied.exitCode).toBe(1);
      expect(applied.log).toContain('after the post steps of job "implement" ended');
      expect(applied.log).toContain('it replaced the record post uploaded');
      expect(await j.head()).toBe(start);
      const [status] = await j.statuses(start, j.tokens[BOT]);
      expect(status).toMatchObject({ state: 'error' });
    });

    it('lands nothing without agent-job: the artifact alone is no evidence', async () => {
      const j = await started();
      const start = await j.head();
      await agentJob(j);
      expect((await j.post()).exitCode).toBe(0);
      const applied = await applyJob(j, { 'agent-job': null });
      expect(applied.exitCode).toBe(1);
      expect(applied.log).toContain('agent-job: required with record');
      expect(applied.stderr).not.toMatch(/\n\s+at /);
      expect(await j.head()).toBe(start);
    });
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
