import type { CallRecord, Digest, RefusalKind } from '../ledger/index.js';

/** Facts for one call's ledger record, filled in by the handler (and the pusher) as it learns them. */
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
  /** request_scope: the glob asked for, and why */
  scope?: { glob: string; reason: string };
}

/** What a handler returns: structured content, and optionally a text rendering other than its JSON. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text?: string;
}

/** How a finished call is recorded in the ledger. */
export interface Outcome {
  decision: CallRecord['decision'];
  reason?: string;
  hidden?: number;
  /** kind of secret to how many values of it were hidden from the answer */
  kinds?: Record<string, number>;
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
