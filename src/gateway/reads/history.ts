import picomatch from 'picomatch';
import type { Perimeter } from '../../policy/index.js';
import { type CommitInfo, COMMITS_PER_CALL, type RepoReads, UpstreamError } from '../../github/index.js';
import { differsWhere, prefetchDiff } from '../../github/index.js';
import { changedPaths, type PathChange } from './changed-paths.js';
import { PathLister, type CommitPage } from './path-history.js';

/** commits judged together: as many as one batched call holds */
const JUDGED_TOGETHER = COMMITS_PER_CALL;

const UPSTREAM_PAGE = 100;
/** At most this many commits are examined for one list_commits answer. */
export const MAX_SCAN = 1_000;
const PARALLEL_DIFFS = 8;
const PAGE_CACHE = 64;
/**
 * Levels of each tree a batched read brings, for get_commit's diff and for judging a whole-branch page:
 * deeper means fewer rounds for a change far down, and the unchanged siblings' listings along with it.
 */
const DIFF_LEVELS = 3;
const WHOLE_LEVELS = 3;

export type { CommitPage } from './path-history.js';

/**
 * History as one perimeter may see it. Everything here is keyed by immutable SHAs (commits reachable
 * from a given head never change), so answers are memoized without any freshness question.
 */
export class History {
  private readonly trees = new Map<string, string>();
  private readonly touchMemo = new Map<string, boolean>();
  private readonly ancestry = new Map<string, boolean>();
  private readonly pages = new Map<string, Promise<CommitInfo[]>>();
  private readonly dirTests = new Map<string, (dir: string) => boolean>();
  private readonly fileLists = new Map<string, Promise<{ paths: string[]; complete: boolean } | null>>();

  /** list_commits below a path by batched GraphQL reads, when the Upstream has them and the branch is known */
  readonly paths: PathLister | null;

  constructor(
    private readonly upstream: RepoReads,
    branch?: string,
  ) {
    this.paths =
      branch !== undefined && upstream.getPathHistory
        ? new PathLister(upstream, branch, (perimeter, commit, within) =>
            this.touchesReadable(perimeter, commit, within),
          )
        : null;
  }

  /** Commits reachable from `head` that change a readable path (below `within` when given), newest first. */
  async list(
    perimeter: Perimeter,
    head: string,
    within: string | undefined,
    perPage: number,
    page: number,
  ): Promise<CommitPage> {
    const wanted = page * perPage + 1;
    const matched: CommitInfo[] = [];
    let scanned = 0;
    let exhausted = false;
    for (let upstreamPage = 1; matched.length < wanted && scanned < MAX_SCAN; upstreamPage++) {
      const batch = await this.listPage(head, within, upstreamPage);
      // Their trees are kept; their reachability is not: get_commit asks it of every SHA alike, so a commit
      // a listing passed over (one that changed hidden files only, say) costs what an unknown SHA costs.
      for (const commit of batch) this.trees.set(commit.sha, commit.tree);
      let judged = 0;
      for (let i = 0; i < batch.length && matched.length < wanted; i += PARALLEL_DIFFS) {
        if (i + PARALLEL_DIFFS > judged && judged < batch.length) {
          // the commits this answer will likely examine, judged together in batched reads (whole calls),
          // from the first not judged yet, so no commit of the chunk below is left to be read one by one
          const need = Math.max(wanted - matched.length, 1);
          const from = Math.max(judged, i);
          if (within !== undefined) {
            judged = from + Math.ceil(need / JUDGED_TOGETHER) * JUDGED_TOGETHER;
            await this.judgeTogether(perimeter, batch.slice(from, judged), within);
          } else {
            // the rest of the listing's page at once: its rounds of batched reads are shared by all
            judged = batch.length;
            await this.judgeWhole(perimeter, batch.slice(from));
          }
        }
        const chunk = batch.slice(i, i + PARALLEL_DIFFS);
        const touched = await Promise.all(chunk.map((c) => this.touchesReadable(perimeter, c, within)));
        chunk.forEach((c, j) => touched[j] && matched.push(c));
      }
      scanned += batch.length;
      if (batch.length < UPSTREAM_PAGE) {
        exhausted = true;
        break;
      }
    }
    const start = (page - 1) * perPage;
    // Below a path with nothing readable found, a cut-off scan would say a hidden directory has long
    // history where a missing one has none: both answer "nothing, complete".
    const cut = !exhausted && matched.length < wanted && (within === undefined || matched.length > 0);
    return {
      commits: matched.slice(start, start + perPage),
      hasMore: matched.length > start + perPage,
      incomplete: cut,
    };
  }

  /** Every file the commit changed against its first parent (the root commit: against nothing). */
  async changes(
    commit: CommitInfo,
    options: { within?: string; stopWhen?: (c: PathChange) => boolean } = {},
  ): Promise<PathChange[]> {
    const parent = commit.parents[0];
    const parentTree = parent === undefined ? null : await this.treeOf(parent);
    return changedPaths(this.upstream, parentTree, commit.tree, options);
  }

  /**
   * What get_commit shows: the commit diffed against its first parent (as GitHub diffs a merge), from
   * listings the history copy holds, else brought in batched reads (prefetchDiff: a few calls whatever the
   * commit's size), else (GraphQL failed or refused) by REST. Always a tree diff, never GitHub's file list:
   * one answer whichever route the trees came by and whatever the commit's size (the file list names a
   * rename without its old blob and a modification without its previous one, and GitHub stops listing at
   * 3,000 files), so a renamed file is its old path deleted and its new one added.
   */
  async commitChanges(commit: CommitInfo): Promise<PathChange[]> {
    const parent = commit.parents[0];
    if (this.upstream.getTrees) {
      // the parent's tree, with both trees' listings, in one batched call when not known yet
      if (parent !== undefined && !this.trees.has(parent)) await this.learnParents(commit.sha);
      const parentTree = parent === undefined ? null : await this.treeOf(parent);
      const pair = { base: parentTree, head: commit.tree };
      if (await prefetchDiff(this.upstream, [pair], { levels: DIFF_LEVELS }))
        return changedPaths(this.upstream, parentTree, commit.tree);
    }
    return this.changes(commit);
  }

  /**
   * Decides touchesReadable for many commits at once where batched reads allow (Upstream.getPathTrees): the
   * tree at `within` in each commit and in its first parent, compared level by level for every commit
   * together, stopping at the first readable path that differs. Commits it cannot decide are left to
   * touchesReadable's own ways. The same question, the same answer: the paths below `within` that differ
   * from the first parent are the ones the commit changed there.
   */
  private async judgeTogether(perimeter: Perimeter, commits: CommitInfo[], within: string): Promise<void> {
    if (!this.upstream.getPathTrees) return;
    const key = (sha: string) => `${perimeter.name}\0${within}\0${sha}`;
    const open = commits.filter((c) => !this.touchMemo.has(key(c.sha)));
    if (open.length === 0) return;
    const trees = await this.upstream.getPathTrees(
      open.map((c) => c.sha),
      within,
    );
    const pairs = [...trees].map(([sha, t]) => ({
      key: sha,
      prefix: within,
      base: t.parentTree,
      head: t.tree,
    }));
    const verdicts = await differsWhere(this.upstream, pairs, (path) => perimeter.canRead(path).allowed);
    for (const [sha, touched] of verdicts) if (touched !== null) this.touchMemo.set(key(sha), touched);
  }

  /** The root trees of a commit's parents, and its own and theirs listed a few levels down, in one batched call. */
  private async learnParents(sha: string): Promise<void> {
    if (!this.upstream.getCommitTrees) return;
    const found = (await this.upstream.getCommitTrees([sha], { levels: DIFF_LEVELS })).get(sha);
    found?.commit.parents.forEach((parent, i) => this.trees.set(parent, found.parentTrees[i]!));
  }

  /**
   * The root trees of these commits, with their listings and those of `trees`, in batched calls where
   * GraphQL serves them (else left unknown).
   */
  private async learnTrees(commits: string[], trees: string[]): Promise<void> {
    const unknown = commits.filter((sha) => !this.trees.has(sha));
    if (unknown.length === 0 || !this.upstream.getCommitTrees) return;
    // their trees' listings along, and those of the trees already known, as differsWhere's first round
    // would ask them: one call where two would do
    const options = { levels: WHOLE_LEVELS, parentLevels: 0, trees };
    for (const [sha, found] of await this.upstream.getCommitTrees(unknown, options))
      this.trees.set(sha, found.commit.tree);
  }

  /**
   * Decides touchesReadable for a whole-branch listing's commits at once (Upstream.getTrees): each commit's
   * tree against its first parent's, both named by the listing, compared level by level for every commit
   * together, stopping at the first readable path that differs. A commit whose parent's tree is not known
   * here, or that the trees cannot decide, is left to touchesReadable. The paths that differ from the first
   * parent are the ones its file list names, so the answer is the same.
   */
  private async judgeWhole(perimeter: Perimeter, commits: CommitInfo[]): Promise<void> {
    if (!this.upstream.getTrees) return;
    const key = (sha: string) => `${perimeter.name}\0\0${sha}`;
    const open = commits.filter((c) => !this.touchMemo.has(key(c.sha)));
    const parents = open.flatMap((c) => c.parents.slice(0, 1));
    const known = parents.flatMap((p) => this.trees.get(p) ?? []);
    await this.learnTrees(parents, [...open.map((c) => c.tree), ...known]);
    const pairs = open.flatMap((c) => {
      const parent = c.parents[0];
      const base = parent === undefined ? null : this.trees.get(parent);
      return base === undefined ? [] : [{ key: c.sha, prefix: '', base, head: c.tree }];
    });
    if (pairs.length === 0) return;
    const verdicts = await differsWhere(this.upstream, pairs, (path) => perimeter.canRead(path).allowed, {
      descendInto: this.readableDirs(perimeter),
      levels: WHOLE_LEVELS,
    });
    for (const [sha, touched] of verdicts) if (touched !== null) this.touchMemo.set(key(sha), touched);
  }

  /**
   * From the commit's file list (one request) when GitHub gives it whole; else, and for merges (whose
   * list GitHub may not diff against the first parent), from a tree diff.
   */
  async touchesReadable(perimeter: Perimeter, commit: CommitInfo, within?: string): Promise<boolean> {
    const key = `${perimeter.name}\0${within ?? ''}\0${commit.sha}`;
    const known = this.touchMemo.get(key);
    if (known !== undefined) return known;
    const readable = (path: string): boolean =>
      (within === undefined || path === within || path.startsWith(`${within}/`)) &&
      perimeter.canRead(path).allowed;
    let result: boolean | undefined;
    if (commit.parents.length <= 1) {
      const listed = await this.upstream.getCommitFiles(commit.sha);
      if (listed.complete) result = listed.paths.some(readable);
    }
    if (result === undefined) {
      const options = {
        stopWhen: (c: PathChange) => readable(c.path),
        descendInto: this.readableDirs(perimeter),
        ...(within !== undefined ? { within } : {}),
      };
      result = (await this.changes(commit, options)).some((c) => readable(c.path));
    }
    this.touchMemo.set(key, result);
    return result;
  }

  /**
   * Directories that may hold a readable file: those on the way to or below the static base of a read
   * glob (`src` for `src/**`; a glob starting with a wildcard has none, so every directory qualifies).
   */
  private readableDirs(perimeter: Perimeter): (dir: string) => boolean {
    let test = this.dirTests.get(perimeter.name);
    if (!test) {
      const bases = perimeter.spec.read.map((glob) => picomatch.scan(glob).base);
      test = bases.includes('')
        ? () => true
        : (dir) =>
            bases.some((base) => dir === base || dir.startsWith(`${base}/`) || base.startsWith(`${dir}/`));
      this.dirTests.set(perimeter.name, test);
    }
    return test;
  }

  /**
   * A commit's file list as GitHub gives it (Upstream.getCommitFiles), null for a SHA GitHub does not know.
   * Asked of GitHub the first time whatever other reads learned (a listing's), then kept for the process,
   * the "not known" answers too: asking about a commit costs what asking about an unknown SHA costs.
   */
  fileList(sha: string): Promise<{ paths: string[]; complete: boolean } | null> {
    let pending = this.fileLists.get(sha);
    if (!pending) {
      pending = this.upstream.getCommitFiles(sha, { fresh: true }).catch((error: unknown) => {
        if (error instanceof UpstreamError && (error.code === 'not_found' || error.code === 'invalid'))
          return null;
        this.fileLists.delete(sha);
        throw error;
      });
      this.fileLists.set(sha, pending);
    }
    return pending;
  }

  /** Whether `sha` is reachable from `head`; unknown SHAs are simply not reachable. */
  async reachable(sha: string, head: string): Promise<boolean> {
    if (sha === head) return true;
    const key = `${sha}\0${head}`;
    const known = this.ancestry.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    try {
      result = await this.upstream.isAncestor(sha, head);
    } catch (error) {
      if (error instanceof UpstreamError && (error.code === 'not_found' || error.code === 'invalid'))
        result = false;
      else throw error;
    }
    this.ancestry.set(key, result);
    return result;
  }

  private async treeOf(sha: string): Promise<string> {
    const known = this.trees.get(sha);
    if (known) return known;
    const tree = (await this.upstream.getCommit(sha)).tree;
    this.trees.set(sha, tree);
    return tree;
  }

  private listPage(head: string, within: string | undefined, page: number): Promise<CommitInfo[]> {
    const key = `${head}\0${within ?? ''}\0${page}`;
    let pending = this.pages.get(key);
    if (!pending) {
      pending = this.upstream.listCommits({
        sha: head,
        perPage: UPSTREAM_PAGE,
        page,
        ...(within !== undefined ? { path: within } : {}),
      });
      pending.catch(() => this.pages.delete(key));
      this.pages.set(key, pending);
      while (this.pages.size > PAGE_CACHE) this.pages.delete(this.pages.keys().next().value!);
    }
    return pending;
  }
}
