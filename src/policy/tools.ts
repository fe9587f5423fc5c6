/**
 * The agent-safe tool catalogue. Repository and branch are fixed by the endpoint, so no tool takes an
 * owner, repo, ref or branch; branch listing and cross-branch compare are deliberately absent.
 */
export const TOOL_NAMES = [
  'get_tree',
  'get_file',
  'get_files',
  'push_files',
  'list_commits',
  'get_commit',
  'request_scope',
  'open_pull_request',
  'add_comment',
  'read_thread',
] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

/**
 * The conversation tools (src/policy/conversation/): they write to people (a pull request, a comment), so a
 * perimeter has them only when its `tools` names them, never by default.
 */
export const CONVERSATION_TOOLS: readonly ToolName[] = ['open_pull_request', 'add_comment', 'read_thread'];

/** What a perimeter without a `tools` key is given: every tool but the conversation ones. */
export const DEFAULT_TOOLS: readonly ToolName[] = TOOL_NAMES.filter((t) => !CONVERSATION_TOOLS.includes(t));

export function isToolName(value: unknown): value is ToolName {
  return typeof value === 'string' && (TOOL_NAMES as readonly string[]).includes(value);
}
