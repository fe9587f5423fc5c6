import { z } from 'zod';
import { defineTool } from './definition.js';
import { conversationOf, threadArgument } from './open-pull-request.js';

export const addComment = defineTool({
  name: 'add_comment',
  description:
    "Comment on the bound branch's pull request (`thread: pull_request`) or on the issue or pull request whose event started this run (`thread: trigger`); no other thread. The perimeter's `conversation` rule caps comments per run; the text may not hold a secret, and @mentions of people it does not list are made inert. A refusal names the rule.",
  readOnly: false,
  destructive: false,
  inputSchema: {
    thread: threadArgument,
    body: z.string().min(1).max(60_000).describe('the comment, in GitHub markdown'),
  },
  outputSchema: {
    number: z
      .number()
      .nullable()
      .describe('the issue or pull request commented on (null: a staged pull request)'),
    url: z.string().nullable(),
    staged: z
      .literal(true)
      .optional()
      .describe('writes are staged: the apply job judges this again and sends it'),
    remaining: z.number().describe('comments this perimeter may still post in this job'),
  },
  pathArguments: {},
  async handler({ thread, body }, context) {
    const result = await conversationOf(context).comment(context.perimeter, thread, body);
    context.notes.reason = result.staged
      ? `staged: a comment on ${thread}`
      : `commented on #${result.number}`;
    return { structured: { ...result } };
  },
});
