/**
 * How a tool reads the repository, the one place that says it. Everything that treats tools by what they do
 * (the default grant, whether a workspace hands out files, which ledger calls replay judges by the read or
 * write globs, the schema's enum) derives from this table; the gateway's definition of each tool carries its
 * entry (src/gateway/tools/definition.ts), so registering a tool is one entry here and one in the gateway's
 * `TOOLS`, and the types make either without the other fail to compile.
 *
 * - `serves`: what of the repository an answer can hold. `content`: the text of readable files (a file, a
 *   search's lines, a blame's lines, a diff's hunks), so it passes the path filter and the secret filter;
 *   `names`: paths, SHAs and commit metadata of readable paths, never file content; `nothing`: no repository
 *   data at all.
 * - `reach`: which states of the branch it reads. `head`: the bound branch's head only; `history`: commits
 *   reachable from it too; `none`.
 * - `writes`: whether it can change anything on GitHub: the repository (paths judged by the write globs) or a
 *   conversation (a pull request, a comment).
 * - `defaultGrant`: whether a perimeter that leaves `tools` out gets it. A tool that shows what the other read
 *   tools show, through the same filters, is granted by default; one that adds a new power says so here.
 */
export interface ToolNature {
  readonly serves: 'content' | 'names' | 'nothing';
  readonly reach: 'head' | 'history' | 'none';
  readonly writes: boolean;
  readonly defaultGrant: boolean;
}

/**
 * The agent-safe tool catalogue. Repository and branch are fixed by the endpoint, so no tool takes an
 * owner, repo, ref or branch; branch listing and cross-branch compare are deliberately absent.
 */
export const TOOL_CATALOGUE = {
  get_tree: { serves: 'names', reach: 'head', writes: false, defaultGrant: true },
  get_file: { serves: 'content', reach: 'head', writes: false, defaultGrant: true },
  get_files: { serves: 'content', reach: 'head', writes: false, defaultGrant: true },
  push_files: { serves: 'names', reach: 'head', writes: true, defaultGrant: true },
  list_commits: { serves: 'names', reach: 'history', writes: false, defaultGrant: true },
  get_commit: { serves: 'names', reach: 'history', writes: false, defaultGrant: true },
  search: { serves: 'content', reach: 'head', writes: false, defaultGrant: true },
  blame: { serves: 'content', reach: 'history', writes: false, defaultGrant: true },
  diff: { serves: 'content', reach: 'history', writes: false, defaultGrant: true },
  request_scope: { serves: 'nothing', reach: 'none', writes: false, defaultGrant: true },
  // the conversation tools write to people, not to the repository: never granted by default
  open_pull_request: { serves: 'nothing', reach: 'none', writes: true, defaultGrant: false },
  add_comment: { serves: 'nothing', reach: 'none', writes: true, defaultGrant: false },
  read_thread: { serves: 'nothing', reach: 'none', writes: false, defaultGrant: false },
} as const satisfies Record<string, ToolNature>;

export type ToolName = keyof typeof TOOL_CATALOGUE;

/** Every tool's name, in the catalogue's order. */
export const TOOL_NAMES = Object.keys(TOOL_CATALOGUE) as readonly ToolName[] as readonly [
  ToolName,
  ...ToolName[],
];

/** What a perimeter that leaves `tools` out is given. */
export const DEFAULT_TOOLS: readonly ToolName[] = TOOL_NAMES.filter(
  (name) => TOOL_CATALOGUE[name].defaultGrant,
);

/**
 * The conversation tools (src/policy/conversation/): they write to people (a pull request, a comment), so a
 * perimeter has them only when its `tools` names them, never by default.
 */
export const CONVERSATION_TOOLS: readonly ToolName[] = ['open_pull_request', 'add_comment', 'read_thread'];

export function isToolName(value: unknown): value is ToolName {
  return typeof value === 'string' && Object.hasOwn(TOOL_CATALOGUE, value);
}

/** A tool's nature, or undefined for a name no tool has. */
export function toolNature(name: string): ToolNature | undefined {
  return isToolName(name) ? TOOL_CATALOGUE[name] : undefined;
}

/** Whether any of these tools hands out the content of readable files (then a workspace holds them too). */
export function servesContent(tools: Iterable<string>): boolean {
  for (const name of tools) if (toolNature(name)?.serves === 'content') return true;
  return false;
}
