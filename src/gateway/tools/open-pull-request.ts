import { z } from 'zod';
import { ToolError } from '../tool-answer.js';
import { defineTool, type ToolContext } from './definition.js';

/** The conversation of this gateway, or the failure every conversation tool answers without one. */
export function conversationOf(context: ToolContext): NonNullable<ToolContext['conversation']> {
  if (context.conversation === null)
    throw new ToolError(
      'this gateway was started without the conversation settings these tools need',
      'failed',
    );
  return context.conversation;
}

/** The `thread` argument of add_comment and read_thread: a name, or a number that must be one of the two. */
export const threadArgument = z
  .union([z.enum(['pull_request', 'trigger']), z.number().int().positive()])
  .describe(
    "which thread: the pull request from the bound branch, or the issue or pull request that started the run (or either one's number)",
  );

export const openPullRequest = defineTool({
  name: 'open_pull_request',
  description:
    "Open the pull request from the bound branch, or update it when it is open already (one per branch: a re-run updates the same one). Perimeter appends to the body who made it and where the job's receipt and record are. The base, draft and labels must be what this perimeter's `conversation` rule allows; the text may not hold a secret, and @mentions of people it does not list are made inert. A refusal names the rule.",
  readOnly: false,
  destructive: false,
  inputSchema: {
    title: z.string().min(1).max(256).describe('the pull request title'),
    body: z.string().max(60_000).describe('the description, in GitHub markdown'),
    base: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe("the branch to merge into; default the open pull request's, else the default branch"),
    draft: z
      .boolean()
      .optional()
      .describe('open as a draft; default what the perimeter allows (draft when it allows drafts only)'),
    labels: z
      .array(z.string().min(1).max(50))
      .max(20)
      .optional()
      .describe("labels to add, from the perimeter's list"),
  },
  outputSchema: {
    number: z.number().nullable().describe('null while staged: the apply job opens it'),
    url: z.string().nullable(),
    staged: z
      .literal(true)
      .optional()
      .describe('writes are staged: the apply job judges this again and sends it'),
    action: z.enum(['opened', 'updated']),
    draft: z.boolean(),
    base: z.string(),
  },
  pathArguments: {},
  async handler(args, context) {
    const result = await conversationOf(context).openOrUpdate(context.perimeter, args);
    context.notes.reason = result.staged
      ? `staged: ${result.action === 'opened' ? 'open' : 'update'} the pull request`
      : `${result.action} pull request #${result.number}`;
    return { structured: { ...result } };
  },
});
