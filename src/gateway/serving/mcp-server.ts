import type { Conversation } from '../conversation/conversation.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import type { Perimeter } from '../../policy/index.js';
import { VERSION } from '../../version.js';
import type { AnswerFilter } from '../../safety/answer-filter.js';
import { describeFailure, renderAnswer, renderError, WITHHELD } from './answers.js';
import type { CallTracker } from './calls.js';
import type { History } from '../reads/history.js';
import type { Pusher } from '../push/push.js';
import type { TrustedInstructions } from '../reads/trusted-instructions.js';
import type { RepoView } from '../reads/repo-view.js';
import type { CallNotes, Outcome } from '../tool-answer.js';
import type { ToolDefinition } from '../tools/definition.js';

export const SERVER_NAME = 'perimeter';
export const SERVER_VERSION = VERSION;

/** Everything one perimeter's endpoint serves from; shared by all of its requests. */
export interface PerimeterRuntime {
  perimeter: Perimeter;
  repository: string;
  branch: string;
  view: RepoView;
  history: History;
  pusher: Pusher;
  instructions: TrustedInstructions | null;
  conversation: Conversation | null;
  /** request_scope calls recorded so far, shared by every perimeter of the gateway */
  scopeRequests: { recorded: number };
  filter: AnswerFilter;
  tools: ToolDefinition[];
  log: (line: string) => void;
}

const redactedSchema = z
  .object({ count: z.number(), kinds: z.record(z.string(), z.number()) })
  .optional()
  .describe('secret-looking values the gateway hid from this answer');

const neutralizedSchema = z
  .object({ count: z.number(), kinds: z.record(z.string(), z.number()) })
  .optional()
  .describe('spans a reader of the file would not see (invisible characters, HTML comments) made visible');

/** Each server would otherwise build its own Ajv instance (about half a millisecond of CPU per request). */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * Zod objects built once per tool: given raw shapes, every per-request server would build them again.
 * The SDK takes a ready object as it is.
 */
const schemas = new WeakMap<ToolDefinition, { input: z.ZodObject; output: z.ZodObject }>();

function schemasOf(tool: ToolDefinition): { input: z.ZodObject; output: z.ZodObject } {
  let built = schemas.get(tool);
  if (!built) {
    built = {
      input: z.object(tool.inputSchema),
      output: z.object({ ...tool.outputSchema, redacted: redactedSchema, neutralized: neutralizedSchema }),
    };
    schemas.set(tool, built);
  }
  return built;
}

/** A fresh server for one HTTP request (stateless Streamable HTTP), with the perimeter's tools only. */
export function createMcpServer(runtime: PerimeterRuntime, tracker: CallTracker): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { instructions: instructionsFor(runtime), jsonSchemaValidator },
  );
  for (const tool of runtime.tools) {
    const handler = async (
      args: Record<string, unknown>,
      extra: { requestId: string | number },
    ): Promise<CallToolResult> => {
      const notes: CallNotes = tracker.get(extra.requestId)?.notes ?? { paths: [] };
      const { result, outcome } = await answer(runtime, tool, args, notes);
      await tracker.complete(extra.requestId, outcome);
      return result;
    };
    // no outputSchema: it would oblige structuredContent, which some clients give their model beside the
    // text (see ANSWER_META); answer() checks each answer against the tool's output schema instead
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: schemasOf(tool).input,
        annotations: { readOnlyHint: tool.readOnly, destructiveHint: tool.destructive, openWorldHint: false },
      },
      handler as never,
    );
  }
  return server;
}

/** Runs one tool and renders its answer or its failure: the one way out for every handled call. */
async function answer(
  runtime: PerimeterRuntime,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  notes: CallNotes,
): Promise<{ result: CallToolResult; outcome: Outcome }> {
  let answered;
  try {
    answered = await tool.handler(args, { ...runtime, notes });
  } catch (error) {
    const { text, outcome } = describeFailure(error, notes, runtime.log);
    const { result, hidden, kinds } = await renderError(runtime.filter, text);
    return { result, outcome: { ...outcome, hidden, kinds } };
  }
  if (!schemasOf(tool).output.safeParse(answered.structured).success) {
    runtime.log(`internal error: ${tool.name} answered outside its output schema`);
    return {
      result: {
        content: [{ type: 'text', text: 'internal error in the gateway; the call did not complete' }],
        isError: true,
      },
      outcome: { decision: 'failed', reason: 'internal error' },
    };
  }
  try {
    const { result, hidden, kinds } = await renderAnswer(runtime.filter, answered);
    return {
      result,
      outcome: { decision: 'allowed', ...(notes.reason ? { reason: notes.reason } : {}), hidden, kinds },
    };
  } catch {
    return {
      result: { content: [{ type: 'text', text: WITHHELD }], isError: true },
      outcome: { decision: 'failed', reason: 'redaction failed' },
    };
  }
}

function instructionsFor({ perimeter, repository, branch }: PerimeterRuntime): string {
  const { spec } = perimeter;
  return [
    `Perimeter "${perimeter.name}" of ${repository}, bound to branch ${branch}.`,
    spec.description ?? '',
    `You may read: ${spec.read.join(', ') || 'nothing'}. You may write: ${spec.write.join(', ') || 'nothing'}.`,
    'Files outside what you may read do not exist here. A refused write is refused whole: nothing was written.',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
