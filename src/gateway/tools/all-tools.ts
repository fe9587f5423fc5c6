import type { ToolName } from '../../policy/index.js';
import type { ToolDefinition } from './definition.js';
import { blame } from './blame.js';
import { diff } from './diff.js';
import { getCommit } from './get-commit.js';
import { getFile } from './get-file.js';
import { getFiles } from './get-files.js';
import { getTree } from './get-tree.js';
import { listCommits } from './list-commits.js';
import { pushFiles } from './push-files.js';
import { requestScope } from './request-scope.js';
import { addComment } from './add-comment.js';
import { openPullRequest } from './open-pull-request.js';
import { readThread } from './read-thread.js';
import { search } from './search.js';

/**
 * Every tool the gateway knows, keyed by its name, in the order tools/list shows them. The type makes the
 * table complete: a name in the policy's catalogue without a definition here does not compile.
 */
export const TOOLS = {
  get_tree: getTree,
  get_file: getFile,
  get_files: getFiles,
  list_commits: listCommits,
  get_commit: getCommit,
  search,
  blame,
  diff,
  push_files: pushFiles,
  request_scope: requestScope,
  open_pull_request: openPullRequest,
  add_comment: addComment,
  read_thread: readThread,
} as const satisfies { readonly [N in ToolName]: ToolDefinition<N> };

export const ALL_TOOLS: readonly ToolDefinition[] = Object.values(TOOLS);

/** The definition of a tool by name, or undefined for a name no tool has. */
export function toolNamed(name: string): ToolDefinition | undefined {
  return Object.hasOwn(TOOLS, name) ? TOOLS[name as ToolName] : undefined;
}
