/**
 * The naive baselines: the same session served the way common GitHub MCP servers serve it, replayed with a
 * plain Octokit against the stand-in. No cache, no batching (get_files becomes one read per path);
 * get_tree is one recursive listing by branch name; list_commits and get_commit one REST call each.
 * - `perFile` (the headline baseline): every file read is one contents API GET; every file written is its
 *   own commit through a contents PUT (`create_or_update_file`). The stand-in has no contents PUT, so writes
 *   are counted, one request per file, not sent.
 * - `githubMcpServer`: what github-mcp-server's tools send: get_file_contents resolves the branch (GET ref)
 *   and then GETs the contents (its extra raw.githubusercontent.com download is not a REST request and is
 *   not counted); push_files gets the ref and the commit, then posts a tree with inline content, a commit
 *   and the ref update. All measured.
 * - `serverGithub`: the reference server (`@modelcontextprotocol/server-github`): reads as `perFile` (one
 *   contents GET each, measured), push_files as its four requests (GET ref, POST tree with the head commit
 *   as base_tree, POST commit, PATCH ref), counted, not sent.
 */
import { getOctokit } from '@actions/github';
import { BRANCH, OWNER, REPO, type StandIn } from '../support/stand-in.js';
import { metered } from './counting.js';
import type { CommitRef, Step } from './session-script.js';

export interface NaiveRun {
  /** contents GET per read (measured), one contents PUT per file written (counted) */
  perFile: number;
  /** github-mcp-server's requests, measured */
  githubMcpServer: number;
  /** server-github's requests: reads measured, each push_files counted as 4 */
  serverGithub: number;
  /** per step, in session order */
  steps: Array<{ tool: Step['tool']; perFile: number; githubMcpServer: number; serverGithub: number }>;
}

/** server-github's push_files: GET ref, POST git/trees, POST git/commits, PATCH git/refs */
const SERVER_GITHUB_PUSH = 4;

export async function runNaiveSession(standIn: StandIn, steps: Step[]): Promise<NaiveRun> {
  const octokit = getOctokit(standIn.token, { baseUrl: standIn.fake.url });
  const repo = { owner: OWNER, repo: REPO };
  const pushes: string[] = [];
  const resolve = (ref: CommitRef): string =>
    'push' in ref ? pushes[ref.push]! : standIn.commits[ref.history]!;
  const tolerate = async (request: Promise<unknown>): Promise<void> => {
    try {
      await request;
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
    }
  };
  const getRef = () =>
    octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repo, ref: `heads/${BRANCH}` });
  const getContents = (path: string) =>
    tolerate(octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path, ref: BRANCH }));
  /** github-mcp-server's get_file_contents: resolve the branch, then the contents API */
  const readFile = async (path: string): Promise<void> => {
    await getRef();
    await getContents(path);
  };
  let refReads = 0;

  const perStep: NaiveRun['steps'] = [];
  for (const step of steps) {
    const { cost } = await metered(standIn.fake, async () => {
      switch (step.tool) {
        case 'get_tree':
          if (step.args.recursive)
            await octokit.request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', {
              ...repo,
              tree_sha: BRANCH,
              recursive: '1',
            });
          else await getContents(step.args.path ?? '');
          return;
        case 'get_file':
          refReads = 1;
          return readFile(step.args.path);
        case 'get_files':
          refReads = step.args.paths.length;
          for (const path of step.args.paths) await readFile(path);
          return;
        case 'list_commits':
          await octokit.request('GET /repos/{owner}/{repo}/commits', {
            ...repo,
            sha: BRANCH,
            per_page: step.args.per_page ?? 30,
            ...(step.args.page !== undefined ? { page: step.args.page } : {}),
            ...(step.args.path !== undefined ? { path: step.args.path } : {}),
          });
          return;
        case 'get_commit':
          await tolerate(
            octokit.request('GET /repos/{owner}/{repo}/commits/{ref}', {
              ...repo,
              ref: resolve(step.commit),
            }),
          );
          return;
        case 'push_files':
          pushes.push(await push(step));
      }
    });
    const perFile = step.tool === 'push_files' ? step.args.files.length : cost.requests - refReads;
    const serverGithub = step.tool === 'push_files' ? SERVER_GITHUB_PUSH : perFile;
    perStep.push({ tool: step.tool, perFile, githubMcpServer: cost.requests, serverGithub });
    refReads = 0;
  }
  const sum = (key: 'perFile' | 'githubMcpServer' | 'serverGithub'): number =>
    perStep.reduce((n, s) => n + s[key], 0);
  return {
    perFile: sum('perFile'),
    githubMcpServer: sum('githubMcpServer'),
    serverGithub: sum('serverGithub'),
    steps: perStep,
  };

  /** github-mcp-server's push_files: one commit, file contents inline in the tree. */
  async function push(step: Extract<Step, { tool: 'push_files' }>): Promise<string> {
    const ref = await getRef();
    const head = ref.data.object.sha;
    const base = await octokit.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', {
      ...repo,
      commit_sha: head,
    });
    const tree = await octokit.request('POST /repos/{owner}/{repo}/git/trees', {
      ...repo,
      base_tree: base.data.tree.sha,
      tree: step.args.files.map((f) => ({
        path: f.path,
        mode: '100644' as const,
        type: 'blob' as const,
        content: f.content,
      })),
    });
    const commit = await octokit.request('POST /repos/{owner}/{repo}/git/commits', {
      ...repo,
      message: step.args.message,
      tree: tree.data.sha,
      parents: [head],
    });
    await octokit.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
      ...repo,
      ref: `heads/${BRANCH}`,
      sha: commit.data.sha,
    });
    return commit.data.sha;
  }
}
