/**
 * Line-by-line mutation of README's workflows (`npm run test:readme-mutants`; it runs the real clients, cached in
 * .cache/agents, against the scripted model): each line is deleted, one at a time, and the whole workflow run
 * again on the workflow runner. The mutant is caught when GitHub would refuse the workflow (it no longer parses
 * as one), a job does not succeed, the receipt differs, the branch holds other files, the job's token is in
 * an agent step's reach somewhere else (a file, the environment, the gateway's memory), or it calls a server
 * the checkout's own .mcp.json names (one is there). A line that survives with GitHub's restricted default
 * for GITHUB_TOKEN's permissions is tried again with the permissive one, which a repository may have chosen. A
 * surviving line must be in SURVIVORS with the reason it may go; an unexplained survivor fails, and so does an
 * explanation for a line that no longer survives.
 * MUTANTS_ONLY (workflow names, comma-separated) runs only those; MUTANTS_LOG (a file) logs each mutant.
 */
import { appendFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionDir, git, removeRunnerUser } from '@perimeter/test-rigs';
import { ensureClients } from './clients.js';
import { modelTls, ROGUE_HOST } from './model-tls.js';
import { readmeWorkflow } from './readme-jobs.js';
import {
  gateVariation,
  issueCommentVariation,
  pullRequests,
  reviewVariation,
  threadComments,
} from './readme-variations.js';
import { WorkspaceScript } from './script.js';
import { CLIENTS, egressOf, receipt, runReadmeJob, type Session, type Variation } from './sessions.js';
import { madeRunnerUser, parseWorkflow, type DefaultPermissions } from './workflow-runner.js';

/** README's workflows mutated here, each with the client it runs. */
const WORKFLOWS: Array<[snippet: string, client: string]> = [
  ['claude-code', 'claude-code'],
  ['agent-sdk', 'agent-sdk'],
  ['codex', 'codex'],
  ['copilot', 'copilot'],
  ['claude-code-workspace', 'claude-code'],
  ['codex-workspace', 'codex'],
  ['two-job', 'claude-code'],
  ['staged', 'claude-code'],
  ['claude-code-action', 'claude-code'],
  ['codex-action', 'codex'],
  // curl is the agent; review runs Claude Code; the gate runs no agent (the model server goes unused)
  ['any-client', 'claude-code'],
  ['review', 'claude-code'],
  ['pull-request-gate', 'claude-code'],
  // started by the owner's `/implement` comment on an issue; the agent opens a pull request and replies
  ['issue-comment', 'claude-code'],
  ['issue-comment-codex', 'codex'],
];

/** The workspace workflows' agent edits a file with its own tools; the rest use the gateway's. */
function variation(snippet: string, client: string): Variation {
  if (snippet === 'any-client') return { files: { 'src/index.ts': 'export const index = 1;\n' } };
  if (snippet === 'review') return reviewVariation(CLIENTS.find((c) => c.name === client)!);
  if (snippet === 'pull-request-gate') return gateVariation();
  if (snippet.startsWith('issue-comment'))
    return issueCommentVariation(CLIENTS.find((c) => c.name === client)!);
  if (!snippet.endsWith('-workspace')) return {};
  const file = { path: `src/from-${client}.ts`, content: `export const from = ${JSON.stringify(client)};\n` };
  return {
    task: `Add ${file.path}`,
    script: (job) => new WorkspaceScript(file, () => job.runner.main?.outputs['workspace-implementer'] ?? ''),
  };
}

/** Lines that may be deleted without the run noticing, by `snippet: line`, and why. */
const NAME = "the workflow's display name: nothing runs differently without it";
const ERROR_EXIT =
  'exits non-zero when the SDK reports an error; the scripted run reports none, so only a failing run shows it';
const OWN_TASK =
  'the scripted model plays its own script whatever the task says, and `codex exec` with an empty prompt still runs';
const OFFLINE =
  "the suite runs Copilot offline against the scripted model (COPILOT_OFFLINE with the provider's own key), " +
  'so the Copilot token is never used';
const ALWAYS =
  'matters only when the agent job fails: the later job must judge it then too; this run succeeds';
const SCRIPTED_PROMPT =
  "a line inside the agent's prompt: the scripted model reads the thread, pushes, opens the pull request and " +
  'replies whatever the prompt says (a real model needs the whole text)';
/** The lines both issue-comment workflows (Claude Code's and Codex's) share that a run may not notice. */
const ISSUE_COMMENT: Record<string, string> = {
  'name: implement from an issue comment': NAME,
  'types: [created]':
    "issue_comment's default activity types are created, edited and deleted: without the line an edited or " +
    'deleted comment starts the job too; the run here is on a created comment',
  '# a command on an issue (not a pull request) from someone who may push': 'a comment',
  "!github.event.issue.pull_request && startsWith(github.event.comment.body, '/implement ') &&":
    'the rest of the `if:` still lets only people who may push start the job; the run is an `/implement` ' +
    'comment on an issue, which the line lets through too (a comment on a pull request, or other text, it stops)',
  'api "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/git/ref/heads/$BRANCH" 2>/dev/null ||':
    'keeps the branch on a re-run, where creating it again would fail; the run is the first, where the ' +
    'branch does not exist yet',
  'perimeters: implementer':
    "the run's perimeters.yml has implementer only, which the default (every perimeter) then exposes",
};
const SURVIVORS: Record<string, string> = {
  ...Object.fromEntries(
    WORKFLOWS.filter(([snippet]) => /^name: implement$/m.test(readmeWorkflow(snippet))).map(([snippet]) => [
      `${snippet}: name: implement`,
      NAME,
    ]),
  ),
  'agent-sdk: console.log(message.result);': "prints the agent's closing text to the log, nothing more",
  'agent-sdk: if (message.is_error) process.exit(1);': ERROR_EXIT,
  'agent-sdk: cwd: process.cwd(),': "the SDK's default working directory is the process's own",
  'codex: TASK: ${{ inputs.task }}': OWN_TASK,
  'codex: # Codex sandboxes its tools with bubblewrap: install it before this step (sudo apt-get install -y bubblewrap)':
    'a comment',
  'codex-workspace: # Codex sandboxes its tools with bubblewrap: install it before this step (sudo apt-get install -y bubblewrap)':
    'a comment',
  'codex-action: prompt: ${{ inputs.task }}': OWN_TASK,
  'codex-action: safety-strategy: unprivileged-user':
    'the headers written into the config work under every strategy, and the default (drop-sudo) runs Codex as ' +
    'the same user here; the line picks the strategy that keeps sudo and the environment from Codex, which the ' +
    'emulation (no user switch) cannot observe',
  'copilot: COPILOT_GITHUB_TOKEN: ${{ secrets.COPILOT_TOKEN }}': OFFLINE,
  'two-job: if: always()': ALWAYS,
  'claude-code-action: with: { persist-credentials: false }':
    "claude-code-action puts its github_token into the checkout's remote itself, so the job's (read-only) token " +
    'is in reach with or without this line; it matters for every other agent',
  "review: # a second identity's token: its review requests changes (GitHub refuses that on your own PR)":
    'a comment',
  'pull-request-gate: # .github/workflows/perimeter-pull-requests.yml': 'a comment',
  'pull-request-gate: types: [opened, synchronize, reopened]':
    "pull_request_target's default activity types are exactly these three (GitHub's events that trigger " +
    'workflows); the line says so for the reader',
  'pull-request-gate: permissions: {}':
    "the job's own permissions replace the workflow's; the line keeps a job added later from the " +
    "repository's default token",
  ...Object.fromEntries(
    ['issue-comment', 'issue-comment-codex'].flatMap((snippet) =>
      Object.entries(ISSUE_COMMENT).map(([line, why]) => [`${snippet}: ${line}`, why]),
    ),
  ),
  'issue-comment: (read_thread, thread: trigger) and do what its last /implement comment asks. Push with \\':
    SCRIPTED_PROMPT,
  'issue-comment: push_files, open the pull request with open_pull_request, then reply in the thread with \\':
    SCRIPTED_PROMPT,
  'issue-comment-codex: last /implement comment asks. Push with push_files, open the pull request with open_pull_request, \\':
    SCRIPTED_PROMPT,
};

interface Outcome {
  results: string;
  /** what the agent steps printed that the workflow is for (curl's answer) */
  answer: string;
  /** the pull requests and their reviews */
  pulls: string;
  /** the comments in every issue and pull request (the agent's reply among them) */
  comments: string;
  receipt: string | undefined;
  tree: string;
  /** where each agent step found the job's token (`job/step (write): where`), as runs can compare it */
  tokenReach: string[];
  /** the agent connected to a server the checkout's own .mcp.json names */
  checkoutServerReached: boolean;
}

/**
 * A server the checkout's `.mcp.json` names (enabled by its `.claude/settings.json`): an agent that loads the
 * branch's MCP configuration calls it.
 */
const rogueHits: string[] = [];
/** the port of the checkout's server (the model has 443); an agent run through run-agent never gets there */
const ROGUE_PORT = 8443;
let rogue: ReturnType<typeof createServer> | undefined;
function rogueHandler(req: IncomingMessage, res: ServerResponse): void {
  rogueHits.push(`${req.method} ${req.url}`);
  res.writeHead(500).end();
}
function checkoutFiles(): Record<string, string> {
  return {
    '.mcp.json': JSON.stringify({
      mcpServers: { rogue: { type: 'http', url: `https://${ROGUE_HOST}:${ROGUE_PORT}/mcp` } },
    }),
    '.claude/settings.json': JSON.stringify({ enableAllProjectMcpServers: true }),
  };
}

/** A place the token was found, without what differs from run to run: temporary directories, the pid. */
const comparable = (where: string): string =>
  where.replace(/(\/[A-Za-z-]+-)[A-Za-z0-9]{6}(?=\/|$)/g, '$1*').replace(/\(pid \d+, /, '(');

async function outcome(session: Session): Promise<Outcome> {
  const { job, run } = session;
  return {
    results: JSON.stringify(run.results),
    answer: session.stepLogs.some((l) => l.includes('export const index = 1;')) ? 'index read' : '',
    pulls: await pullRequests(job, run.observer),
    comments: await threadComments(job, run.observer),
    receipt: await receipt(session),
    tree: await git(job.bare, ['ls-tree', '-r', '--name-only', job.branch]),
    tokenReach: run.reach.flatMap((r) =>
      r.found.map((where) => `${r.job}/${r.step}${r.writeToken ? ' (write)' : ''}: ${comparable(where)}`),
    ),
    // directly (an agent step of the runner's user), or asked of the egress proxy, which refuses it (run-agent)
    checkoutServerReached:
      rogueHits.splice(0).length > 0 || egressOf(session).some((e) => e.startsWith(`${ROGUE_HOST}:`)),
  };
}

let dir = '';
const report: string[] = [];
beforeAll(async () => {
  await ensureClients();
  dir = await actionDir();
  const tls = await modelTls();
  rogue = createServer({ key: tls.key, cert: tls.cert }, rogueHandler);
  await new Promise<void>((resolve) => rogue?.listen(ROGUE_PORT, '127.0.0.1', resolve));
}, 900_000);
afterAll(() => {
  rogue?.close();
  // the runner-like user the isolation workflows ran as, its sudo rule and the denial main left
  if (madeRunnerUser()) removeRunnerUser();
  console.log(report.join('\n'));
});
/** MUTANTS_ONLY=claude-code,codex,…: only these workflows (a partial run; the others are skipped) */
const only = process.env.MUTANTS_ONLY ? process.env.MUTANTS_ONLY.split(',').map((s) => s.trim()) : null;
/** MUTANTS_LOG=file: each mutant's line as it is decided (the report above comes only at the end) */
const progress = (line: string) => {
  report.push(line);
  if (process.env.MUTANTS_LOG) appendFileSync(process.env.MUTANTS_LOG, `${line}\n`);
};

describe("README's workflows, a line deleted at a time", () => {
  for (const [snippet, clientName] of WORKFLOWS) {
    it.skipIf(only !== null && !only.includes(snippet))(snippet, { timeout: 3_600_000 }, async () => {
      const client = CLIENTS.find((c) => c.name === clientName)!;
      const text = readmeWorkflow(snippet);
      const varied = variation(snippet, clientName);
      const base: Variation = {
        ...varied,
        snippet,
        files: { ...checkoutFiles(), ...varied.files },
      };
      const run = async (
        edit?: (t: string) => string,
        defaultPermissions: DefaultPermissions = 'restricted',
      ): Promise<Outcome | string> => {
        let session: Session | undefined;
        rogueHits.splice(0);
        try {
          if (edit) parseWorkflow(edit(text));
        } catch (error) {
          return `refused: ${(error as Error).message.split('\n')[0]}`;
        }
        try {
          session = await runReadmeJob(dir, client, { ...base, ...(edit && { edit }), defaultPermissions });
          return await outcome(session);
        } catch (error) {
          // the runner could not go on: the workflow fails
          return `failed: ${(error as Error).message.split('\n')[0]}`;
        } finally {
          await session?.model.stop();
          await session?.job.close();
        }
      };
      const baseline = await run();
      // the workflow as README shows it: every job succeeds, and a receipt is posted
      expect(baseline).toEqual(expect.objectContaining({ receipt: expect.any(String) }));
      const results = JSON.parse((baseline as Outcome).results) as Record<string, string>;
      expect(Object.values(results).length).toBeGreaterThan(0);
      expect(
        Object.values(results).every((r) => r === 'success'),
        JSON.stringify(results),
      ).toBe(true);
      let permissive: Outcome | string | undefined;
      const lines = text.split('\n');
      const survivors: string[] = [];
      let caught = 0;
      let mutants = 0;
      for (const [i, line] of lines.entries()) {
        if (line.trim() === '') continue;
        mutants++;
        const mutant = () => lines.filter((_, j) => j !== i).join('\n');
        let got = await run(mutant);
        let same = typeof got === 'object' && JSON.stringify(got) === JSON.stringify(baseline);
        // a repository may give GITHUB_TOKEN the permissive default instead: a line that survives on the
        // restricted one must also survive there (a deleted `permissions:` then hands out write)
        if (same) {
          permissive ??= await run(undefined, 'permissive');
          got = await run(mutant, 'permissive');
          same = typeof got === 'object' && JSON.stringify(got) === JSON.stringify(permissive);
        }
        if (same) survivors.push(`${snippet}: ${line.trim()}`);
        else caught++;
        progress(
          `${snippet} -${i + 1} ${same ? 'SURVIVED' : 'caught'} ${line.trim()}${typeof got === 'string' ? ` (${got})` : same ? '' : ` ${JSON.stringify(got).slice(0, 160)}`}`,
        );
      }
      progress(`${snippet}: ${caught}/${mutants} caught (${Math.round((100 * caught) / mutants)}%)`);
      const explained = Object.keys(SURVIVORS).filter((k) => k.startsWith(`${snippet}: `));
      expect(
        survivors.filter((s) => !(s in SURVIVORS)),
        'unexplained survivors',
      ).toEqual([]);
      expect(
        explained.filter((s) => !survivors.includes(s)),
        'explained lines that no longer survive',
      ).toEqual([]);
    });
  }
});
