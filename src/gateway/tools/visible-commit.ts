import type { CommitInfo } from '../../github/index.js';
import type { PathChange } from '../reads/changed-paths.js';
import { ToolError } from '../tool-answer.js';
import type { ToolContext } from './definition.js';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * A commit as get_commit decides it (and diff after it): a full SHA, reachable from the bound branch's head,
 * changing at least one readable path against its first parent. An unreachable commit and one that changes
 * only hidden paths answer "not found" alike; the real reason goes to the ledger's notes.
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
  const absent = new ToolError(`commit ${sha} not found`, 'absent');
  const head = await view.upstream.getBranchHead(view.branch);
  if (!(await history.reachable(sha, head))) {
    notes.refused = true;
    notes.reason = 'not reachable from the bound branch';
    throw absent;
  }
  const commit = await view.commit(sha);
  const changes = await history.commitChanges(commit);
  const readable = changes.filter((c) => perimeter.canRead(c.path).allowed);
  if (readable.length === 0) {
    notes.refused = true;
    notes.reason = 'changes no readable path';
    throw absent;
  }
  return { commit, readable, omitted: changes.length - readable.length };
}
