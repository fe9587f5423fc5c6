import { blobSha, type CommitInfo, UpstreamError } from '../../github/index.js';
import type { Perimeter } from '../../policy/index.js';
import { nextBase, unlanded, type Landing, type PushResult } from './push-landing.js';
import { refusal, shapeOf, type PushPlan } from './push-plan.js';
import { graphqlCannot, unchangedAt } from './push-route.js';
import type { RepoView, Snapshot } from '../reads/repo-view.js';
import { ToolError, type CallNotes } from '../tool-answer.js';
import { filesChanged, indexAfterPush, type WrittenFile } from '../reads/tree-index.js';

/** After GraphQL's budget ran out, how long pushes go by REST before GraphQL is tried again. */
const GRAPHQL_PAUSE_MS = 10 * 60_000;

/**
 * The GraphQL landing: the whole push in one createCommitOnBranch on top of the head it was judged on
 * (`expectedHeadOid`), so a branch that moved meanwhile refuses it and nothing is written. A moved branch is
 * read again and the push retried on top of the other commits, as the Git Data landing does. What GraphQL
 * cannot express (push-route.ts), and every push while GraphQL's budget is spent, goes to `fallback`.
 */
export class GraphqlLanding implements Landing {
  private pausedUntil = 0;

  constructor(
    private readonly view: RepoView,
    private readonly fallback: Landing,
  ) {}

  async land(perimeter: Perimeter, plan: PushPlan, notes: CallNotes, given?: Snapshot): Promise<PushResult> {
    const { upstream, branch } = this.view;
    let base = given ?? (await this.view.snapshot());
    const shape = shapeOf(perimeter, base, plan);
    if (shape.problems.length > 0) throw refusal(shape.problems, notes);

    for (let attempt = 1; ; attempt++) {
      const { replaced } = shapeOf(perimeter, base, plan);
      if (
        !upstream.commitOnBranch ||
        Date.now() < this.pausedUntil ||
        graphqlCannot(base, plan, replaced).length > 0
      )
        return this.fallback.land(perimeter, plan, notes, base);
      const deletions = [...replaced, ...plan.deletions];
      if (unchangedAt(perimeter, base, plan)) {
        notes.reason = 'no change: the files already have this content';
        return unlanded(base, plan);
      }
      let commit: CommitInfo | null;
      try {
        commit = await upstream.commitOnBranch(branch, base.head, plan.message, {
          additions: plan.files.map((f) => ({ path: f.path, bytes: f.bytes })),
          deletions,
        });
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        if (error.code === 'rate_limited' && error.status === 200) {
          // GraphQL's own budget is spent (refused before it ran): the Git Data API, on REST's, lands it
          this.pausedUntil = Date.now() + GRAPHQL_PAUSE_MS;
          return this.fallback.land(perimeter, plan, notes, base);
        }
        if (error.code === 'unavailable') commit = await this.landedAnyway(base, plan, deletions, error);
        else if (error.code === 'not_fast_forward') commit = null;
        else throw error;
      }
      if (commit) {
        notes.commit = commit.sha;
        const index = indexAfterPush(base.index, written(plan), deletions, commit.tree);
        if (index) {
          this.view.remember(index);
          upstream.rememberCommitFiles?.(commit.sha, filesChanged(base.index, index));
        }
        return { ...unlanded(base, plan), commit: commit.sha, head: commit.sha };
      }
      base = await nextBase(this.view, perimeter, base, plan, notes, attempt);
    }
  }

  /**
   * After a failure that leaves open whether the commit landed (its answer lost): the branch head when it is
   * this push (one commit on `base` with exactly this tree), else a ToolError saying what is known.
   */
  private async landedAnyway(
    base: Snapshot,
    plan: PushPlan,
    deletions: string[],
    error: UpstreamError,
  ): Promise<CommitInfo> {
    const { upstream, branch } = this.view;
    const head = await upstream.tryGetBranchHead(branch).catch(() => undefined);
    if (head === base.head)
      throw new ToolError(`push failed, nothing was written: ${error.message}`, 'failed');
    if (head) {
      const commit = await upstream.getCommit(head).catch(() => null);
      const ours =
        commit !== null &&
        commit.parents.length === 1 &&
        commit.parents[0] === base.head &&
        indexAfterPush(base.index, written(plan), deletions, commit.tree) !== null;
      if (ours) return commit;
    }
    throw new ToolError(
      `push failed: ${error.message}; whether it landed is not known (the branch is at ${head ?? 'an unknown head'}). Read the files before pushing again.`,
      'failed',
    );
  }
}

/** The files as createCommitOnBranch writes them: regular files, mode 100644. */
function written(plan: PushPlan): WrittenFile[] {
  return plan.files.map((f) => ({
    path: f.path,
    mode: '100644',
    sha: blobSha(f.bytes),
    size: f.bytes.length,
  }));
}
