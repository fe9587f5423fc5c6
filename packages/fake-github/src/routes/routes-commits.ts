import { diffFiles } from '../git/diff.js';
import { gitText } from '../git/git.js';
import { HttpError, linkHeader, missing, notFound, pageParams, unprocessable } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import type { ParsedCommit } from '../repo.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { commitJson, htmlUrl, repoApi } from '../shapes.js';

/** GitHub lists at most 300 files in a compare and 3,000 for one commit. */
const COMPARE_FILE_LIMIT = 300;
const COMMIT_FILE_LIMIT = 3000;
const COMPARE_COMMIT_LIMIT = 250;

async function readCommits(ctx: RouteContext, shas: string[]): Promise<ParsedCommit[]> {
  const commits = await Promise.all(shas.map((sha) => ctx.repo.readCommit(sha)));
  return commits.filter((c): c is ParsedCommit => c !== null);
}

async function listCommits(ctx: RouteContext): Promise<ApiResponse> {
  const start = ctx.url.searchParams.get('sha') ?? (await ctx.repo.defaultBranch());
  const head = await ctx.repo.resolveCommit(start);
  if (!head) throw await missing(ctx.repo);
  const { perPage, page } = pageParams(ctx.url);
  const filters: string[] = [];
  const since = ctx.url.searchParams.get('since');
  const until = ctx.url.searchParams.get('until');
  if (since) filters.push(`--since=${since}`);
  if (until) filters.push(`--until=${until}`);
  const path = ctx.url.searchParams.get('path');
  const pathspec = path ? ['--', `:(literal)${path.replace(/^\/+/, '')}`] : [];
  const total = Number(
    (await gitText(ctx.repo.dir, ['rev-list', '--count', ...filters, head, ...pathspec])).trim(),
  );
  const out = await gitText(ctx.repo.dir, [
    'rev-list',
    `--skip=${(page - 1) * perPage}`,
    `--max-count=${perPage}`,
    ...filters,
    head,
    ...pathspec,
  ]);
  const commits = await readCommits(ctx, out.split('\n').filter(Boolean));
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const link = linkHeader(ctx.url, page, page < lastPage, lastPage);
  return {
    status: 200,
    body: commits.map((c) => commitJson(ctx.base, ctx.repo, c)),
    headers: link ? { link } : {},
  };
}

async function getCommit(ctx: RouteContext): Promise<ApiResponse> {
  const sha = await ctx.repo.resolveCommit(ctx.params.ref!);
  if (!sha) throw await missing(ctx.repo, () => unprocessable(`No commit found for SHA: ${ctx.params.ref}`));
  const commit = (await ctx.repo.readCommit(sha))!;
  const diff = await diffFiles(ctx.base, ctx.repo, commit.parents[0] ?? null, sha, COMMIT_FILE_LIMIT);
  return {
    status: 200,
    body: {
      ...commitJson(ctx.base, ctx.repo, commit),
      stats: { total: diff.additions + diff.deletions, additions: diff.additions, deletions: diff.deletions },
      files: diff.files,
    },
  };
}

async function compare(ctx: RouteContext): Promise<ApiResponse> {
  const basehead = ctx.params.basehead!;
  const split = basehead.indexOf('...');
  if (split < 0) throw notFound();
  const baseName = basehead.slice(0, split);
  const headName = basehead.slice(split + 3);
  const [baseSha, headSha] = await Promise.all([
    ctx.repo.resolveCommit(baseName),
    ctx.repo.resolveCommit(headName),
  ]);
  if (!baseSha || !headSha) throw await missing(ctx.repo);
  const mergeBase = await ctx.repo.mergeBase(baseSha, headSha);
  if (!mergeBase) throw new HttpError(404, `No common ancestor between ${baseName} and ${headName}.`);
  const count = async (range: string): Promise<number> =>
    Number((await gitText(ctx.repo.dir, ['rev-list', '--count', range])).trim());
  const [aheadBy, behindBy] = await Promise.all([
    count(`${baseSha}..${headSha}`),
    count(`${headSha}..${baseSha}`),
  ]);
  const status =
    aheadBy === 0 && behindBy === 0
      ? 'identical'
      : behindBy === 0
        ? 'ahead'
        : aheadBy === 0
          ? 'behind'
          : 'diverged';
  // Without paging parameters GitHub lists the first 250 commits; with them, pages of per_page.
  const paged = ctx.url.searchParams.has('per_page') || ctx.url.searchParams.has('page');
  const { perPage, page } = paged ? pageParams(ctx.url) : { perPage: COMPARE_COMMIT_LIMIT, page: 1 };
  const listed = await gitText(ctx.repo.dir, ['rev-list', '--reverse', `${baseSha}..${headSha}`]);
  const shas = listed.split('\n').filter(Boolean);
  const commits = await readCommits(ctx, shas.slice((page - 1) * perPage, page * perPage));
  const lastPage = Math.max(1, Math.ceil(shas.length / perPage));
  const link = paged ? linkHeader(ctx.url, page, page < lastPage, lastPage) : undefined;
  const diff = await diffFiles(ctx.base, ctx.repo, mergeBase, headSha, COMPARE_FILE_LIMIT);
  const [baseCommit, mergeBaseCommit] = await readCommits(ctx, [baseSha, mergeBase]);
  const html = htmlUrl(ctx.base, ctx.repo);
  return {
    status: 200,
    body: {
      url: `${repoApi(ctx.base, ctx.repo)}/compare/${basehead}`,
      html_url: `${html}/compare/${basehead}`,
      permalink_url: `${html}/compare/${ctx.repo.owner}:${baseSha}...${ctx.repo.owner}:${headSha}`,
      diff_url: `${html}/compare/${basehead}.diff`,
      patch_url: `${html}/compare/${basehead}.patch`,
      base_commit: commitJson(ctx.base, ctx.repo, baseCommit!),
      merge_base_commit: commitJson(ctx.base, ctx.repo, mergeBaseCommit!),
      status,
      ahead_by: aheadBy,
      behind_by: behindBy,
      total_commits: aheadBy,
      commits: commits.map((c) => commitJson(ctx.base, ctx.repo, c)),
      files: diff.files,
    },
    headers: link ? { link } : {},
  };
}

export const commitRoutes: Route[] = [
  route('GET', '/repos/{owner}/{repo}/commits', listCommits),
  route('GET', '/repos/{owner}/{repo}/compare/{basehead+}', compare),
];

/** Registered after the commit status routes, whose paths also start with commits/{ref}. */
export const commitRouteLast: Route = route('GET', '/repos/{owner}/{repo}/commits/{ref+}', getCommit);
