import type { Perimeter } from '../../policy/index.js';
import type { CommitInfo, PathCommit, RepoReads } from '../../github/index.js';
import { differsWhere } from '../../github/index.js';

/** Levels of the tree at the path that come with each commit: enough for most folders' whole depth. */
const LEVELS = 10;
/** Commits asked for per call at most (GraphQL's `first` limit). */
const MAX_FIRST = 100;

export interface CommitPage {
  commits: CommitInfo[];
  hasMore: boolean;
  /** the scan stopped at MAX_SCAN before finding enough commits */
  incomplete: boolean;
}

export interface Scan {
  head: string;
  commits: PathCommit[];
  cursor: string | null;
  done: boolean;
}

/**
 * list_commits below a path by GraphQL (Upstream.getPathHistory): one call brings the branch head, a page of
 * the commits changing the path and, for each, its tree at the path several levels deep, so which commits
 * change a readable file is decided from trees already at hand. The scan of one path from one head is kept,
 * so the next page continues where this one stopped.
 */
export class PathLister {
  private readonly scans = new Map<string, Scan>();
  private readonly verdicts = new Map<string, boolean>();

  constructor(
    private readonly upstream: RepoReads,
    private readonly branch: string,
    /** the fallback for a commit the trees cannot decide (a merge's tree missing, say) */
    private readonly touchesReadable: (
      perimeter: Perimeter,
      commit: CommitInfo,
      within: string,
    ) => Promise<boolean>,
  ) {}

  /**
   * The branch head now and the scan from it, grown towards `wanted` commits: one GraphQL call, or a ref read
   * to confirm the head when the scan has reached the path's first commit. Null when GraphQL could not serve it.
   */
  async start(within: string, wanted: number): Promise<Scan | null> {
    const known = this.scans.get(within);
    // a scan that can go on is continued (the call confirms the head); a finished one needs the head only
    if (known?.done) {
      const head = await this.upstream.getBranchHead(this.branch);
      if (head === known.head) return known;
    }
    // continuing: as many again as one answer may need, so one call usually does
    return this.grow(within, known ?? null, (known?.commits.length ?? 0) + wanted);
  }

  /** Commits of the scan that change a readable path, until `wanted` are found or the scan ends. */
  async list(
    perimeter: Perimeter,
    given: Scan,
    within: string,
    perPage: number,
    page: number,
    maxScan: number,
  ): Promise<CommitPage> {
    let scan = given;
    const wanted = page * perPage + 1;
    const matched: CommitInfo[] = [];
    let at = 0;
    while (matched.length < wanted && at < maxScan) {
      // the last commit fetched is judged after the next call: that call brings its parent's tree
      const ready = scan.done ? scan.commits.length : scan.commits.length - 1;
      if (at >= ready) {
        if (scan.done) break;
        // as many more as the share of readable commits so far suggests, in one call
        const share = Math.max(matched.length / Math.max(at, 1), 0.25);
        const grown = await this.grow(within, scan, at + Math.ceil((wanted - matched.length) / share));
        if (!grown) break;
        if (grown !== scan) {
          // the branch moved meanwhile: the answer is about the new head, from its start
          scan = grown;
          matched.length = 0;
          at = 0;
        }
        continue;
      }
      // only as many as this answer may need: judging costs nothing more when all of them are readable
      const batch = scan.commits.slice(at, Math.min(at + wanted - matched.length, ready, maxScan));
      await this.judge(perimeter, batch, within);
      for (const { commit } of batch) {
        at++;
        if (this.verdicts.get(this.key(perimeter, within, commit.sha))) matched.push(commit);
      }
    }
    const start = (page - 1) * perPage;
    // as History.list: below a path with nothing readable found, a cut-off scan answers "nothing, complete"
    const cut = matched.length < wanted && at >= maxScan && matched.length > 0;
    return {
      commits: matched.slice(start, start + perPage),
      hasMore: matched.length > start + perPage,
      incomplete: cut,
    };
  }

  private key(perimeter: Perimeter, within: string, sha: string): string {
    return `${perimeter.name}\0${within}\0${sha}`;
  }

  /** One more call: the scan continued (or begun afresh when the head moved), or null when GraphQL failed. */
  private async grow(within: string, scan: Scan | null, wanted: number): Promise<Scan | null> {
    const have = scan?.commits.length ?? 0;
    // one more than needed: its tree is usually the parent side of the last one needed
    const first = Math.min(MAX_FIRST, Math.max(1, wanted - have + (have === 0 ? 1 : 0)));
    const page = await this.upstream.getPathHistory!(this.branch, within, {
      first,
      after: scan?.cursor ?? null,
      levels: LEVELS,
    });
    if (!page) return null;
    if (scan && page.head.sha !== scan.head) {
      // the branch moved: the cursor belonged to the old head's history
      this.scans.delete(within);
      return this.grow(within, null, wanted);
    }
    const next = scan ?? { head: page.head.sha, commits: [], cursor: null, done: false };
    next.commits.push(...page.commits);
    next.cursor = page.endCursor;
    next.done = !page.hasNextPage;
    this.scans.set(within, next);
    return next;
  }

  /** Decides every commit not decided yet: together from the trees at the path, else one by one. */
  private async judge(perimeter: Perimeter, commits: PathCommit[], within: string): Promise<void> {
    const open = commits.filter((c) => !this.verdicts.has(this.key(perimeter, within, c.commit.sha)));
    if (open.length === 0) return;
    const pairs = open.flatMap((c) =>
      c.tree === undefined || c.parentTree === undefined
        ? []
        : [{ key: c.commit.sha, prefix: within, base: c.parentTree, head: c.tree }],
    );
    const decided = await differsWhere(this.upstream, pairs, (path) => perimeter.canRead(path).allowed);
    for (const { commit } of open) {
      const verdict = decided.get(commit.sha) ?? (await this.touchesReadable(perimeter, commit, within));
      this.verdicts.set(this.key(perimeter, within, commit.sha), verdict);
    }
  }
}
