import { StagedUpstream, type StagedChangeSet } from '../github/staged-upstream.js';
import { UpstreamError, type TreeChange, type Upstream } from '../github/upstream.js';
import type { Perimeter } from '../policy/index.js';
import { diffTrees, fileViolations, type Change } from '../verify/index.js';
import type { Violation } from '../verify/types.js';

/** One staged commit and what it changes against the commit before it. */
export interface StagedCommit {
  sha: string;
  message: string;
  tree: string;
  changes: Change[];
}

export interface JudgedChangeSet {
  commits: StagedCommit[];
  /** every path any commit changes, sorted */
  paths: string[];
  violations: Violation[];
}

/**
 * Every staged commit judged by the verdict's rules against the perimeters read from the trusted ref:
 * what each commit changes is recomputed from its trees, never taken from the set's word.
 */
export async function judgeChangeSet(
  upstream: Upstream,
  set: StagedChangeSet,
  perimeters: Perimeter[],
): Promise<JudgedChangeSet> {
  const view = StagedUpstream.fromChangeSet(upstream, set);
  const commits: StagedCommit[] = [];
  let parentTree = (await upstream.getCommit(set.base)).tree;
  const violations: Violation[] = [];
  for (const commit of set.commits) {
    const changes = await diffTrees(view, parentTree, commit.tree);
    commits.push({ sha: commit.sha, message: commit.message, tree: commit.tree, changes });
    for (const change of changes)
      if (change.kind !== 'deleted' && change.newSha !== undefined && !(change.newSha in set.blobs))
        violations.push({
          kind: 'path',
          path: change.path,
          message: `${change.path}: its content is not in the staged change set`,
        });
    violations.push(...fileViolations(changes, set.branch, perimeters));
    parentTree = commit.tree;
  }
  const paths = [...new Set(commits.flatMap((c) => c.changes.map((x) => x.path)))].sort();
  const unique = new Map(violations.map((v) => [v.message, v]));
  return { commits, paths, violations: [...unique.values()] };
}

export type ApplyResult =
  | { state: 'applied'; head: string; commits: string[]; onTopOf: string }
  | { state: 'blocked'; reason: string };

/**
 * Writes judged staged commits to GitHub on the bound branch, then moves the branch once (fast-forward
 * only), so either every commit lands or none does. On the base the set was staged on, each tree GitHub
 * makes must be the staged tree itself; on a branch that moved since, the commits go on top only when the
 * commits in between touched none of the same paths.
 */
export async function applyChangeSet(
  upstream: Upstream,
  set: StagedChangeSet,
  judged: JudgedChangeSet,
): Promise<ApplyResult> {
  const head = await upstream.getBranchHead(set.branch);
  if (head !== set.base) {
    if (!(await upstream.isAncestor(set.base, head)))
      return {
        state: 'blocked',
        reason: `"${set.branch}" no longer contains ${set.base}, the head the changes were staged on`,
      };
    const [base, now] = await Promise.all([upstream.getCommit(set.base), upstream.getCommit(head)]);
    const theirs = new Set((await diffTrees(upstream, base.tree, now.tree)).map((c) => c.path));
    const overlap = judged.paths.filter((p) => theirs.has(p));
    if (overlap.length > 0)
      return {
        state: 'blocked',
        reason: `"${set.branch}" moved to ${head} since staging and those commits also changed: ${overlap.slice(0, 20).join(', ')}`,
      };
  }
  let parent = head;
  let parentTree = (await upstream.getCommit(head)).tree;
  const written: string[] = [];
  for (const [i, commit] of judged.commits.entries()) {
    const tree = await upstream.createTree(parentTree, await treeChanges(upstream, set, commit.changes));
    if (head === set.base && tree !== commit.tree)
      throw new UpstreamError(
        'invalid',
        `GitHub made tree ${tree} for staged commit ${i + 1}, not the staged tree ${commit.tree}; nothing was moved`,
      );
    parent = await upstream.createCommit(commit.message, tree, [parent]);
    parentTree = tree;
    written.push(parent);
  }
  try {
    await upstream.updateBranch(set.branch, parent);
  } catch (error) {
    if (error instanceof UpstreamError && error.code === 'not_fast_forward')
      return {
        state: 'blocked',
        reason: `"${set.branch}" moved while the changes were being written; nothing was moved`,
      };
    throw error;
  }
  return { state: 'applied', head: parent, commits: written, onTopOf: head };
}

/** Text that survives UTF-8 unchanged goes inline; anything else is a blob of its own. */
async function treeChanges(
  upstream: Upstream,
  set: StagedChangeSet,
  changes: Change[],
): Promise<TreeChange[]> {
  const out: TreeChange[] = [];
  for (const change of changes) {
    if (change.kind === 'deleted') {
      out.push({ path: change.path, sha: null });
      continue;
    }
    const mode = change.newMode === '100755' ? '100755' : '100644';
    const bytes = Buffer.from(set.blobs[change.newSha!]!, 'base64');
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) out.push({ path: change.path, mode, content: text });
    else out.push({ path: change.path, mode, sha: await upstream.createBlob(bytes) });
  }
  return out;
}
