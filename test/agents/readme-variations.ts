/**
 * What README's workflows that are not a plain agent job need around them to run whole: the review workflow's
 * perimeters.yml (its `review` globs) and an agent session that sends a file to review; the pull-request gate's
 * perimeters.yml, Copilot coding agent's pull request, and the pull_request_target event that starts the gate.
 */
import { FILES, type Job } from '@perimeter/test-rigs';
import { readmeWorkflow } from './readme-jobs.js';
import { conversationSteps, Script } from './script.js';
import type { ClientCase, Variation } from './sessions.js';

/** The review workflow: README's perimeters.yml above it; the agent pushes a file its `review` globs name. */
export function reviewVariation(client: ClientCase): Variation {
  return {
    snippet: 'review',
    // apply posts its receipt on the review pull request's head (run 4242, attempt 1)
    receiptAt: (job) => job.head('perimeter/review/4242-1'),
    files: { 'perimeters.yml': readmeWorkflow('review-perimeters') },
    script: () =>
      new Script(
        {
          readable: { path: 'src/count.ts', expect: 'export const count' },
          hidden: '.github/workflows/ci.yml',
          missing: 'docs/nothing-here.md',
          outside: { path: 'package.json', content: '{ "name": "widgets", "version": "2.0.0" }\n' },
          inside: { path: `docs/from-${client.name}.md`, content: `# Notes from ${client.name}\n` },
        },
        client.toolName,
      ),
  };
}

const COPILOT = 'ghu_CopilotCodingAgent0123456789abcdefghij';
const PULL_BRANCH = 'copilot/fix-issue-12';

/**
 * The pull-request gate: README's perimeters.yml for Copilot coding agent; Copilot pushes a change inside its
 * write globs to a copilot/ branch and opens the pull request; the run starts on pull_request_target, and the
 * receipt is the status on the pull request's head.
 */
export function gateVariation(): Variation {
  let pull = { number: 0, head: '' };
  return {
    snippet: 'pull-request-gate',
    files: { 'perimeters.yml': readmeWorkflow('pull-request-gate-perimeters') },
    beforeJob: async (job: Job) => {
      job.tokens.Copilot = COPILOT;
      job.gh.addToken(COPILOT, 'Copilot');
      const head = await job.push(
        { 'src/count.ts': `${FILES['src/count.ts']}export const none = 0;\n` },
        { as: 'Copilot', from: 'main', branch: PULL_BRANCH, message: 'Fix #12' },
      );
      const answer = await fetch(`${job.gh.url}/repos/octo/widgets/pulls`, {
        method: 'POST',
        headers: { authorization: `token ${COPILOT}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Fix #12', head: PULL_BRANCH, base: 'main', draft: true }),
      });
      if (answer.status !== 201) throw new Error(`opening the pull request: ${answer.status}`);
      pull = { number: ((await answer.json()) as { number: number }).number, head };
    },
    event: async () => ({
      name: 'pull_request_target',
      ref: 'refs/heads/main',
      payload: {
        action: 'opened',
        number: pull.number,
        pull_request: {
          number: pull.number,
          head: { sha: pull.head, ref: PULL_BRANCH },
          base: { ref: 'main' },
        },
      },
    }),
    receiptAt: async () => pull.head,
  };
}

/** The pull requests and their reviews, a line each, for comparing runs. */
export async function pullRequests(job: Job, token: string): Promise<string> {
  const get = async (path: string): Promise<unknown> =>
    (
      await fetch(`${job.gh.url}/repos/octo/widgets/pulls${path}`, {
        headers: { authorization: `token ${token}` },
      })
    ).json();
  // every pull request, open or closed, whatever issues share the numbers before it
  const pulls = (await get('?state=all&per_page=100')) as Array<{
    number: number;
    head: { ref: string };
    draft: boolean;
  }>;
  const found: string[] = [];
  for (const p of pulls.sort((a, b) => a.number - b.number)) {
    const reviews = (await get(`/${p.number}/reviews`)) as Array<{ user: { login: string }; state: string }>;
    found.push(
      `#${p.number} ${p.head.ref}${p.draft ? ' draft' : ''}: ${reviews.map((r) => `${r.user.login} ${r.state}`).join(', ')}`,
    );
  }
  return found.join('\n');
}

/** The comments of every issue and pull request, a line each (number, author, first line), for comparing runs. */
export async function threadComments(job: Job, token: string): Promise<string> {
  const found: string[] = [];
  for (let number = 1; ; number++) {
    const answer = await fetch(`${job.gh.url}/repos/octo/widgets/issues/${number}/comments`, {
      headers: { authorization: `token ${token}` },
    });
    if (answer.status === 404) break;
    const comments = (await answer.json()) as Array<{ user: { login: string }; body: string }>;
    for (const c of comments) found.push(`#${number} ${c.user.login}: ${c.body.split('\n')[0]}`);
  }
  return found.join('\n');
}

/** The triggering thread: an issue alice (no write access) opened, and octo's (the owner's) command. */
const ISSUE_AUTHOR = { login: 'alice', token: 'ghp_AliceOpensIssues0123456789abcdefghij' };
const COMMANDER = { login: 'octo', token: 'ghp_OctoOwnsTheRepository0123456789abcdef' };

/**
 * README's issue-comment workflow: its perimeters.yml; alice's issue and the owner's `/implement` comment made
 * in the stand-in through its REST API, whose answers are the `issue_comment` event's `issue` and `comment`
 * (GitHub's payload carries the same issue and comment objects); the bound branch `agent/issue-<number>` made
 * by the workflow's own step. The agent reads the thread, pushes, opens the pull request and replies.
 * https://docs.github.com/webhooks/webhook-events-and-payloads#issue_comment
 */
export function issueCommentVariation(
  client: ClientCase,
  /** who writes the `/implement` comment: the owner, or alice, who has no write access */
  commander: 'owner' | 'stranger' = 'owner',
): Variation {
  const by = commander === 'owner' ? COMMANDER : ISSUE_AUTHOR;
  const inside = {
    path: `src/from-${client.name}.ts`,
    content: `export const from = ${JSON.stringify(client.name)};\n`,
  };
  const command = `/implement add ${inside.path}`;
  let payload: Record<string, unknown> = {};
  const api = async (
    token: string,
    job: Job,
    path: string,
    body: unknown,
  ): Promise<Record<string, unknown>> => {
    const answer = await fetch(`${job.gh.url}/repos/octo/widgets${path}`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as Record<string, unknown>;
  };
  return {
    snippet: 'issue-comment',
    files: { 'perimeters.yml': readmeWorkflow('issue-comment-perimeters') },
    branch: { name: ISSUE_BRANCH, madeByWorkflow: true },
    beforeJob: async (job) => {
      for (const { login, token } of [ISSUE_AUTHOR, COMMANDER]) job.gh.addToken(token, login);
      const issue = await api(ISSUE_AUTHOR.token, job, '/issues', {
        title: `Add ${inside.path}`,
        body: 'The widgets need a marker file.',
      });
      if (issue.number !== ISSUE_NUMBER) throw new Error(`the issue is #${String(issue.number)}`);
      const comment = await api(by.token, job, `/issues/${ISSUE_NUMBER}/comments`, { body: command });
      payload = {
        action: 'created',
        issue,
        comment,
        repository: { full_name: 'octo/widgets', name: 'widgets', owner: { login: 'octo' } },
        sender: comment.user,
      };
    },
    event: async () => ({ name: 'issue_comment', ref: 'refs/heads/main', payload }),
    script: () => new Script(conversationSteps(command, inside), client.toolName),
  };
}

export const ISSUE_NUMBER = 1;
export const ISSUE_BRANCH = `agent/issue-${ISSUE_NUMBER}`;
