import { UpstreamError } from '../../github/index.js';
import type { Perimeter } from '../../policy/index.js';
import {
  conflicts,
  isNoChange,
  refusal,
  shapeOf,
  treeChanges,
  writtenFiles,
  type PushPlan,
} from './push-plan.js';
import type { RepoView, Snapshot } from '../reads/repo-view.js';
import { ToolError, type CallNotes } from '../tool-answer.js';
import { indexAfterPush } from '../reads/tree-index.js';

export interface PushResult {
  /** null when the tree came out unchanged and no commit was made (never when a written file is unreadable) */
  commit: string | null;
  head: string;
  files: string[];
  deletions: string[];
  /** binary files whose content could only partly be scanned for credentials, and why */
  unscanned?: string[];
  /** the commit is kept in the runner for a later apply job (`writes: stage`), not on GitHub yet */
  staged?: true;
  /** paths of this push the perimeter may not write on its own: the apply job sends them to review */
  review?: string[];
}

/**
 * How a checked push reaches the bound branch. It lands the plan as one commit or throws a ToolError
 * (a shape problem refuses, a conflict fails) having written no ref; it records the commit in `notes`.
 */
export interface Landing {
  /** `base`: the branch as the caller just read it, when it did */
  land(perimeter: Perimeter, plan: PushPlan, notes: CallNotes, base?: Snapshot): Promise<PushResult>;
}

/** Attempts to land one push while the branch moves under unrelated commits. */
export const MAX_ATTEMPTS = 3;

/**
 * The Git Data API landing: blobs for binary files, one tree with inline text, one commit, then a
 * fast-forward-only ref update; a branch that moved meanwhile never loses a write silently.
 */
export class GitDataLanding implements Landing {
  constructor(private readonly view: RepoView) {}

  async land(perimeter: Perimeter, plan: PushPlan, notes: CallNotes, given?: Snapshot): Promise<PushResult> {
    const { upstream } = this.view;
    let base = given ?? (await this.view.snapshot());
    let shape = shapeOf(perimeter, base, plan);
    if (shape.problems.length > 0) throw refusal(shape.problems, notes);

    const blobs = new Map<string, string>();
    for (const file of plan.files)
      if (file.text === null) blobs.set(file.path, await upstream.createBlob(file.bytes));

    for (let attempt = 1; ; attempt++) {
      const changes = treeChanges(base, plan, blobs, shape.replaced);
      const tree = await upstream.createTree(base.commit.tree, changes);
      const result = unlanded(base, plan);
      if (isNoChange(perimeter, base, tree, plan)) {
        notes.reason = 'no change: the files already have this content';
        return result;
      }
      const commit = await upstream.createCommit(plan.message, tree, [base.head]);
      if (await this.moveBranch(commit)) {
        notes.commit = commit;
        const index = indexAfterPush(
          base.index,
          writtenFiles(plan, changes, blobs),
          [...shape.replaced, ...plan.deletions],
          tree,
        );
        if (index) this.view.remember(index);
        return {
          ...result,
          commit,
          head: commit,
          ...(upstream.writesStaged ? { staged: true as const } : {}),
        };
      }
      base = await nextBase(this.view, perimeter, base, plan, notes, attempt);
      shape = shapeOf(perimeter, base, plan);
    }
  }

  /** Moves the branch to `commit`: true when it landed, false when the branch had moved; throws otherwise. */
  private async moveBranch(commit: string): Promise<boolean> {
    const { upstream, branch } = this.view;
    try {
      await upstream.updateBranch(branch, commit);
      return true;
    } catch (error) {
      if (error instanceof UpstreamError && error.code === 'not_fast_forward') return false;
      // the update may have landed with its answer lost on the way back
      if ((await upstream.tryGetBranchHead(branch).catch(() => null)) === commit) return true;
      throw error;
    }
  }
}

/** The answer before anything landed: the branch at `base`, the plan's paths. */
export function unlanded(base: Snapshot, plan: PushPlan): PushResult {
  return {
    head: base.head,
    commit: null,
    files: plan.files.map((f) => f.path),
    deletions: plan.deletions,
    ...(plan.unscanned.length > 0 ? { unscanned: plan.unscanned } : {}),
  };
}

/**
 * After the branch moved from `base` under attempt `attempt`: the branch as it is now, to build on, or a
 * ToolError when the other change touched this push's paths or the branch keeps moving.
 */
export async function nextBase(
  view: RepoView,
  perimeter: Perimeter,
  base: Snapshot,
  plan: PushPlan,
  notes: CallNotes,
  attempt: number,
): Promise<Snapshot> {
  const next = await view.snapshot();
  const blocking = conflicts(perimeter, base, next, plan);
  if (blocking.length > 0) {
    notes.reason = `conflict with ${next.head}: ${blocking.join(', ')}`;
    throw new ToolError(
      `push conflict, nothing was written: the branch moved to ${next.head} and that change also touched: ${blocking.join(', ')}. Read those files again and push again.`,
      'failed',
    );
  }
  if (attempt >= MAX_ATTEMPTS) {
    throw new ToolError(
      `push failed, nothing was written: the branch kept moving (now at ${next.head}); try again`,
      'failed',
    );
  }
  return next;
}
