import type { z } from 'zod';
import { TOOL_CATALOGUE, type Perimeter, type ToolName, type ToolNature } from '../../policy/index.js';
import type { AnswerFilter } from '../../safety/answer-filter.js';
import type { History } from '../reads/history.js';
import type { Pusher } from '../push/push.js';
import type { RepoView } from '../reads/repo-view.js';
import type { CallNotes, ToolAnswer } from '../tool-answer.js';
import type { TrustedInstructions } from '../reads/trusted-instructions.js';
import type { Conversation } from '../conversation/conversation.js';

/** What a tool handler may use: everything is bound to one perimeter, one repository, one branch. */
export interface ToolContext {
  readonly perimeter: Perimeter;
  readonly branch: string;
  readonly view: RepoView;
  readonly history: History;
  readonly pusher: Pusher;
  /** agent instruction files from the trusted config ref; null when the gateway was given no such ref */
  readonly instructions: TrustedInstructions | null;
  /** request_scope calls recorded in this gateway, every perimeter's together (the per-job bound) */
  readonly scopeRequests: { recorded: number };
  /** the pull request and threads of the conversation tools; null when the gateway was given no settings for them */
  readonly conversation: Conversation | null;
  /**
   * The secret filter every answer passes through on its way out (serving/answers.ts). A tool that decides
   * on content (search's matches, blame's and diff's lines) decides on the text as the filter shows it, so a
   * match, a missing match or a line's place is never an oracle for a hidden value.
   */
  readonly filter: AnswerFilter;
  /** Facts for this call's ledger record, filled in by the handler as it learns them. */
  readonly notes: CallNotes;
}

/**
 * How an argument names repository paths: `one` (a string), `list` (strings) or `items` (objects, each
 * with a `path`). The ledger records these paths even for calls refused before the handler ran.
 */
export type PathArgument = 'one' | 'list' | 'items';

export interface ToolDefinition<N extends ToolName = ToolName> {
  name: N;
  /** how it reads: its entry in the policy's catalogue (src/policy/tools.ts), never restated here */
  nature: ToolNature;
  description: string;
  readOnly: boolean;
  destructive: boolean;
  inputSchema: z.ZodRawShape;
  outputSchema: z.ZodRawShape;
  /** the arguments that name repository paths, and how */
  pathArguments: Readonly<Record<string, PathArgument>>;
  handler(args: Record<string, unknown>, context: ToolContext): Promise<ToolAnswer>;
}

/** Keeps each tool's handler typed by its own input schema while the table holds them all. */
export function defineTool<N extends ToolName, In extends z.ZodRawShape>(tool: {
  name: N;
  description: string;
  readOnly: boolean;
  destructive: boolean;
  inputSchema: In;
  outputSchema: z.ZodRawShape;
  pathArguments: { readonly [K in keyof In]?: PathArgument };
  handler(args: z.infer<z.ZodObject<In>>, context: ToolContext): Promise<ToolAnswer>;
}): ToolDefinition<N> {
  const nature: ToolNature = TOOL_CATALOGUE[tool.name];
  if (nature.writes === tool.readOnly)
    throw new Error(`tool ${tool.name}: readOnly contradicts its catalogue entry (writes: ${nature.writes})`);
  return { ...tool, nature } as unknown as ToolDefinition<N>;
}

/** The paths a call's arguments name, as the tool declares them; at most 1,000, whatever the arguments hold. */
export function requestedPaths(tool: ToolDefinition | undefined, args: unknown): string[] {
  if (tool === undefined || args === null || typeof args !== 'object') return [];
  const out: string[] = [];
  const add = (value: unknown): void => void (typeof value === 'string' && out.push(value));
  for (const [name, kind] of Object.entries(tool.pathArguments)) {
    const value = (args as Record<string, unknown>)[name];
    if (kind === 'one') add(value);
    else if (Array.isArray(value))
      for (const item of value) add(kind === 'list' ? item : (item as { path?: unknown } | null)?.path);
  }
  return out.slice(0, 1000);
}
