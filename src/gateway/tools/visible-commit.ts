import type { CommitInfo } from '../../github/index.js';
import type { PathChange } from '../reads/changed-paths.js';
import { ToolError } from '../tool-answer.js';
import type { ToolContext } from './definition.js';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * A commit as get_commit decides it (and diff after it): a full SHA, reachable from the bound branch's head,
 * changing at least one readable path against its first parent. An unreachable commit and one that changes
 * only hidden paths answer "not found" alike; the real reason goes to the ledger's notes.
 *
 * They cost alike too (hidden equals missing in requests, not only in answers). Where the history copy holds
 * the head (Upstream.holdsHistory), every question below is answered on this machine: neither costs a
 * request. Where it does not (no trusted git, the copy failed), two questions go to GitHub at once, whatever
 * the SHA: is it reachable (a compare) and what did it change (its file list). An unknown SHA gets two
 * "not found"s, a commit that changed hidden files only gets two answers that settle it, and neither asks
 * more. A merge, or a commit whose file list GitHub cut short, is then settled by diffing its trees, a cost
 * an unknown SHA does not have (SECURITY.md says so).
 */
export async function visibleCommit(
  raw: string,
  { perimeter, view, history, notes }: Pick<ToolContext, 'perimeter' | 'view' | 'history' | 'notes'>,
): Promise<{ commit: CommitInfo; readable: PathChange[]; omitted: number }> {
  const sha = raw.toLowerCase();
  if (!SHA.test(sha))
    throw new ToolError(
      `invalid commit SHA ${JSON.stringify(raw)}: expected 40 hexadecimal characters`,
      'refused',
    );
  const absent = (reason: string): ToolError => {
    notes.refused = true;
    notes.reason = reason;
    return new ToolError(`commit ${sha} not found`, 'absent');
  };
  const head = await view.upstream.getBranchHead(view.branch);
  const local = view.upstream.holdsHistory?.(head) ?? false;
  const [reachable, listed] = await Promise.all([
    history.reachable(sha, head),
    local ? null : history.fileList(sha),
  ]);
  if (!reachable) throw absent('not reachable from the bound branch');
  const commit = await view.commit(sha);
  const canRead = (path: string): boolean => perimeter.canRead(path).allowed;
  // a merge's file list need not be against its first parent: its trees decide
  if (listed?.complete && commit.parents.length <= 1 && !listed.paths.some(canRead))
    throw absent('changes no readable path');
  const changes = await history.commitChanges(commit);
  const readable = changes.filter((c) => canRead(c.path));
  if (readable.length === 0) throw absent('changes no readable path');
  return { commit, readable, omitted: changes.length - readable.length };
}
