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
] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

export function isToolName(value: unknown): value is ToolName {
  return typeof value === 'string' && (TOOL_NAMES as readonly string[]).includes(value);
}
