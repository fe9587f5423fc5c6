import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { UpstreamError } from '../github/upstream.js';
import type { AnswerFilter } from '../safety/answer-filter.js';
import type { Outcome } from './calls.js';
import { ToolError, type CallNotes, type ToolAnswer } from './tools/definition.js';

export const WITHHELD = 'the answer could not be checked for secrets, so it is withheld';

/**
 * Every answer leaves through here: each string of the structured content and of the text goes through
 * the filter, the count of hidden values is added, and a filter failure withholds the answer.
 */
export async function renderAnswer(
  filter: AnswerFilter,
  answer: ToolAnswer,
): Promise<{ result: CallToolResult; hidden: number }> {
  const redactor = new Redactor(filter);
  const structured = await redactor.walk(answer.structured);
  const text = answer.text === undefined ? JSON.stringify(structured) : await redactor.redact(answer.text);
  const content: CallToolResult['content'] = [{ type: 'text', text }];
  const { hidden, kinds } = redactor;
  if (hidden > 0) {
    structured.redacted = { count: hidden, kinds };
    const list = Object.entries(kinds)
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ');
    content.push({
      type: 'text',
      text: `[${hidden} secret-looking value(s) hidden from this answer: ${list}]`,
    });
  }
  return { result: { content, structuredContent: structured }, hidden };
}

/** Runs every string of a value through the filter once, counting what it hid. */
export class Redactor {
  hidden = 0;
  readonly kinds: Record<string, number> = {};
  private readonly cache = new Map<string, Promise<string>>();

  constructor(private readonly filter: AnswerFilter) {}

  redact(text: string): Promise<string> {
    let pending = this.cache.get(text);
    if (!pending) {
      pending = this.filter.redact(text).then((redaction) => {
        this.hidden += redaction.hidden;
        for (const [kind, n] of Object.entries(redaction.kinds))
          this.kinds[kind] = (this.kinds[kind] ?? 0) + n;
        return redaction.text;
      });
      this.cache.set(text, pending);
    }
    return pending;
  }

  async walk<T>(value: T): Promise<T> {
    if (typeof value === 'string') return (await this.redact(value)) as T;
    if (Array.isArray(value)) return (await Promise.all(value.map((v) => this.walk(v)))) as T;
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = await this.walk(v);
      return out as T;
    }
    return value;
  }
}

/** The agent-facing text of a failure, and how the ledger classifies it. */
export function describeFailure(
  error: unknown,
  notes: CallNotes,
  log: (line: string) => void,
): { text: string; outcome: Outcome } {
  if (error instanceof ToolError) {
    const decision =
      error.kind === 'refused' || (error.kind === 'absent' && notes.refused)
        ? 'refused'
        : error.kind === 'failed'
          ? 'failed'
          : 'allowed';
    return { text: error.message, outcome: { decision, reason: notes.reason ?? error.message } };
  }
  if (error instanceof UpstreamError) {
    const text = `GitHub refused or failed the request (${error.code}${error.status ? `, HTTP ${error.status}` : ''}): ${error.message}`;
    return { text, outcome: { decision: 'failed', reason: text } };
  }
  log(`internal error: ${error instanceof Error ? `${error.name}: ${error.message}` : 'non-error thrown'}`);
  return {
    text: 'internal error in the gateway; the call did not complete',
    outcome: { decision: 'failed', reason: 'internal error' },
  };
}

export async function renderError(
  filter: AnswerFilter,
  text: string,
): Promise<{ result: CallToolResult; hidden: number }> {
  let shown = WITHHELD;
  let hidden = 0;
  try {
    const redaction = await filter.redact(text);
    shown = redaction.text;
    hidden = redaction.hidden;
  } catch {
    // fail closed: the unchecked text never leaves
  }
  return { result: { content: [{ type: 'text', text: shown }], isError: true }, hidden };
}
