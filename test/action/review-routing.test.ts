/**
 * Review routing (perimeters.yml `review`) as a runner runs the built bundles: a read-only agent job stages a
 * change to a protected file its perimeter sends to review, and the apply job puts it in a draft pull request
 * with a review naming the file and the rule, leaving the bound branch where it was. Perimeter never approves,
 * and GitHub (the stand-in) would refuse the job's own token an approval anyway.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answerOf, FILES, RUN_ID, text, type ActionRunner, type Job } from '@perimeter/test-rigs';
import { jobSuite } from './support/suite.js';

const BOT = 'github-actions[bot]';
const MAINTAINER = 'mona';
const REVIEWED = FILES['perimeters.yml']!.replace(
  '    write: ["src/**"]\n',
  '    write: ["src/**"]\n    review: ["AGENTS.md", "docs/**"]\n',
);
const { started } = jobSuite({
  files: { ...FILES, 'perimeters.yml': REVIEWED, 'AGENTS.md': '# Agents\n' },
  inputs: { perimeters: 'implementer', writes: 'stage' },
  contents: 'read',
  statuses: 'none',
  checks: 'none',
  actors: [BOT, MAINTAINER],
});

const runners: ActionRunner[] = [];
afterEach(() => {
  for (const runner of runners.splice(0)) runner.dispose();
});

interface Review {
  state: string;
  body: string;
  user: { login: string };
}

/** GitHub's REST API with one of the job's tokens. */
async function api(j: Job, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${j.gh.url}/repos/octo/widgets${path}`, {
    method,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

/** The agent job: one push through the gateway with a protected file its perimeter sends to review. */
async function agentJob(j: Job): Promise<void> {
  const agent = await j.agent('implementer');
  const pushed = await agent.callTool({
    name: 'push_files',
    arguments: {
      message: 'Teach agents to count',
      files: [
        { path: 'AGENTS.md', content: '# Agents\n\nCount truthy widgets only.\n' },
        {
          path: 'src/count.ts',
          content: 'export const count = (xs: unknown[]) => xs.filter(Boolean).length;\n',
        },
      ],
    },
  });
  expect(pushed.isError, text(pushed)).toBeFalsy();
  expect(answerOf(pushed as CallToolResult)).toMatchObject({ staged: true, review: ['AGENTS.md'] });
  const post = await j.post();
  expect(post.exitCode, post.log + post.stderr).toBe(0);
}

async function applyJob(j: Job, inputs: Record<string, string> = {}) {
  if (j.record?.status !== 'completed') await j.end();
  const runner = j.laterJob('apply', 'apply', {
    token: j.tokens[BOT]!,
    inputs: {
      record: j.runner.main!.outputs.record!,
      'agent-job': 'implement',
      perimeters: 'implementer',
      ...inputs,
    },
  });
  runners.push(runner);
  return runner.runMain();
}

describe('changes sent to review over two jobs', { timeout: 300_000 }, () => {
  it('opens a draft pull request with a review requesting changes on the protected file, the branch unmoved', async () => {
    const j = await started();
    const start = await j.head();
    await agentJob(j);

    const applied = await applyJob(j, { 'review-token': j.tokens[MAINTAINER]! });
    expect(applied.exitCode, applied.log + applied.stderr).toBe(0);
    expect(await j.head()).toBe(start);
    const branch = `perimeter/review/${RUN_ID}-1`;
    const prHead = await j.head(branch);
    expect(applied.outputs.head).toBe(prHead);
    expect(applied.outputs.review).toBe('AGENTS.md');
    expect(applied.outputs['pull-request']).toMatch(/\/pull\/1$/);

    const pull = await api(j, j.tokens[BOT]!, 'GET', '/pulls/1');
    expect(pull.body).toMatchObject({ draft: true, head: { ref: branch }, base: { ref: j.branch } });
    const reviews = (await api(j, j.tokens[BOT]!, 'GET', '/pulls/1/reviews')).body as Review[];
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ state: 'CHANGES_REQUESTED', user: { login: MAINTAINER } });
    expect(reviews[0]!.body).toContain(
      '| AGENTS.md | implementer: review glob "AGENTS.md" (protected: AGENTS.md) |',
    );
    expect(reviews[0]!.body).not.toContain('src/count.ts');

    // never a pass a branch rule could take while the file waits for a person
    const [status] = await j.statuses(prHead, j.tokens[BOT]);
    expect(status).toMatchObject({ state: 'pending', context: 'perimeter' });
    expect(status!.description).toMatch(/^Needs a person's review: .* in draft PR #1: AGENTS\.md/);
    expect(applied.summary).toContain('sent to review');
    expect(applied.summary).toContain('| AGENTS.md |');
  });

  it("sends the commit's reviewed path to review though another exposed perimeter may write it", async () => {
    const withWriter = `${REVIEWED}  docs-writer:\n    read: ["docs/**"]\n    write: ["docs/**"]\n`;
    const j = await started({
      files: { ...FILES, 'perimeters.yml': withWriter, 'AGENTS.md': '# Agents\n' },
      inputs: { perimeters: 'implementer,docs-writer', writes: 'stage' },
    });
    const start = await j.head();
    const agent = await j.agent('implementer');
    const pushed = await agent.callTool({
      name: 'push_files',
      arguments: {
        message: 'Count, and say so in the roadmap',
        files: [
          {
            path: 'src/count.ts',
            content: 'export const count = (xs: unknown[]) => xs.filter(Boolean).length;\n',
          },
          { path: 'docs/roadmap.md', content: '# Roadmap\n\nCounting is done.\n' },
        ],
      },
    });
    expect(answerOf(pushed as CallToolResult)).toMatchObject({ staged: true, review: ['docs/roadmap.md'] });
    const post = await j.post();
    expect(post.exitCode, post.log + post.stderr).toBe(0);

    const applied = await applyJob(j, { perimeters: 'implementer,docs-writer' });
    expect(applied.exitCode, applied.log + applied.stderr).toBe(0);
    expect(await j.head()).toBe(start);
    expect(applied.outputs.review).toBe('docs/roadmap.md');
    expect(applied.outputs['pull-request']).toMatch(/\/pull\/1$/);
  });

  it('refuses a reviewed workflow rather than pushing it to a branch of the repository', async () => {
    const reviewsWorkflows = REVIEWED.replace(
      'review: ["AGENTS.md", "docs/**"]',
      'review: ["AGENTS.md", ".github/**"]',
    );
    const j = await started({
      files: { ...FILES, 'perimeters.yml': reviewsWorkflows, 'AGENTS.md': '# Agents\n' },
    });
    const start = await j.head();
    const agent = await j.agent('implementer');
    const pushed = await agent.callTool({
      name: 'push_files',
      arguments: {
        message: 'A workflow of my own',
        files: [{ path: '.github/workflows/mine.yml', content: 'on: push\njobs: {}\n' }],
      },
    });
    expect(answerOf(pushed as CallToolResult)).toMatchObject({ staged: true });
    const post = await j.post();
    expect(post.exitCode, post.log + post.stderr).toBe(0);

    const applied = await applyJob(j);
    expect(applied.exitCode).not.toBe(0);
    expect(applied.log).toContain('.github/workflows/mine.yml: not sent to review');
    expect(await j.head()).toBe(start);
    expect(await j.head('perimeter/review/' + RUN_ID + '-1').catch(() => null)).toBeNull();
  });

  it('without review-token posts a comment review, and says merge-blocking needs branch protection', async () => {
    const j = await started();
    const start = await j.head();
    await agentJob(j);

    const applied = await applyJob(j);
    expect(applied.exitCode, applied.log + applied.stderr).toBe(0);
    expect(await j.head()).toBe(start);
    const reviews = (await api(j, j.tokens[BOT]!, 'GET', '/pulls/1/reviews')).body as Review[];
    expect(reviews.map((r) => [r.state, r.user.login])).toEqual([['COMMENTED', BOT]]);
    expect(applied.summary).toContain('merge-blocking needs branch protection or CODEOWNERS');

    // GitHub refuses the job's own token an approval of the pull request it opened; Perimeter never asks
    const approval = await api(j, j.tokens[BOT]!, 'POST', '/pulls/1/reviews', { event: 'APPROVE' });
    expect(approval.status).toBe(422);
  });

  it('refuses a push with a path outside both write and review, whole, as before', async () => {
    const j = await started();
    const agent = await j.agent('implementer');
    const pushed = await agent.callTool({
      name: 'push_files',
      arguments: {
        message: 'Rewrite the readme',
        files: [
          { path: 'README.md', content: '# gadgets\n' },
          { path: 'AGENTS.md', content: '# Agents\n\nAnything goes.\n' },
        ],
      },
    });
    expect(pushed.isError).toBe(true);
    expect(text(pushed)).toContain('README.md: not writable');
    expect(text(pushed)).toContain('nothing was written');
  });
});
