import type { z } from 'zod';
import type { Digest, RefusalKind } from '../../ledger/index.js';
import type { Perimeter, ToolName } from '../../policy/index.js';
import type { History } from '../history.js';
import type { Pusher } from '../push.js';
import type { RepoView } from '../repo-view.js';
import type { TrustedInstructions } from '../trusted-instructions.js';

/** What a tool handler may use: everything is bound to one perimeter, one repository, one branch. */
export interface ToolContext {
  readonly perimeter: Perimeter;
  readonly branch: string;
  readonly view: RepoView;
  readonly history: History;
  readonly pusher: Pusher;
  /** agent instruction files from the trusted config ref; null when the gateway was given no such ref */
  readonly instructions: TrustedInstructions | null;
  /** Facts for this call's ledger record, filled in by the handler as it learns them. */
  readonly notes: CallNotes;
}

export interface CallNotes {
  paths: string[];
  /** the real reason behind an answer, for the ledger only (a hidden path's answer says "not found") */
  reason?: string;
  refused?: boolean;
  /** the kinds of refusal the reason lists, for the receipt's counts */
  refusedFor?: RefusalKind[];
  commit?: string;
  sha?: string;
  message?: Digest;
  content?: Array<{ path: string } & Digest>;
}

/** What a handler returns: structured content, and optionally a text rendering other than its JSON. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text?: string;
}

export interface ToolDefinition {
  name: ToolName;
  description: string;
  readOnly: boolean;
  destructive: boolean;
  inputSchema: z.ZodRawShape;
  outputSchema: z.ZodRawShape;
  handler(args: Record<string, unknown>, context: ToolContext): Promise<ToolAnswer>;
}

/** Keeps each tool's handler typed by its own input schema while the table holds them all. */
export function defineTool<In extends z.ZodRawShape>(tool: {
  name: ToolName;
  description: string;
  readOnly: boolean;
  destructive: boolean;
  inputSchema: In;
  outputSchema: z.ZodRawShape;
  handler(args: z.infer<z.ZodObject<In>>, context: ToolContext): Promise<ToolAnswer>;
}): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** An answer the agent should see as an error. `refused` marks policy refusals (as opposed to failures). */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly kind: 'refused' | 'absent' | 'failed' = 'failed',
  ) {
    super(message);
    this.name = 'ToolError';
  }
}
