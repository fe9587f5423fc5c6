import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AnswerFilter } from '../../safety/answer-filter.js';
import { Redactor } from '../redactor.js';
import type { CallRecord, Ledger } from '../../ledger/index.js';
import type { MeterReading, UpstreamMeter } from './meter.js';
import type { CallNotes, Outcome } from '../tool-answer.js';
import { toolNamed } from '../tools/all-tools.js';
import { requestedPaths } from '../tools/definition.js';

export interface PendingCall {
  tool: string;
  started: number;
  meter: MeterReading;
  notes: CallNotes;
  /** the paths the arguments name, for calls refused before a handler ran */
  requested: string[];
  outcome?: Outcome;
}

export interface CallServices {
  perimeter: string;
  ledger: Ledger;
  meter: UpstreamMeter;
  filter: AnswerFilter;
  log: (line: string) => void;
}

/**
 * Follows the tools/call requests of one HTTP request from arrival to answer, so that every call gets a
 * ledger record, including the ones the SDK answers itself (unknown tool, invalid arguments).
 */
export class CallTracker {
  private readonly calls = new Map<RequestId, PendingCall>();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly services: CallServices) {}

  begin(message: JSONRPCMessage): void {
    if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return;
    const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
    this.calls.set(message.id, {
      tool: typeof params.name === 'string' ? params.name : String(params.name),
      started: Date.now(),
      meter: this.services.meter.start(),
      notes: { paths: [] },
      requested: requestedPaths(toolNamed(String(params.name)), params.arguments),
    });
  }

  /** Resolves once every call seen so far has its answer (and its ledger record). */
  idle(): Promise<void> {
    if (this.calls.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  get(id: RequestId): PendingCall | undefined {
    return this.calls.get(id);
  }

  /**
   * Answers on their way out. A call no handler saw (unknown tool, invalid arguments: the SDK answered
   * itself) is recorded here, its answer filtered like any other.
   */
  async finish(message: JSONRPCMessage): Promise<JSONRPCMessage> {
    if ('method' in message || !('id' in message) || message.id === undefined) return message;
    const call = this.calls.get(message.id);
    if (!call || call.outcome) return message;
    const scrubbed = await this.scrubUnhandled(message);
    call.notes.paths = call.requested;
    await this.complete(message.id, { decision: 'refused', reason: scrubbed.text });
    return scrubbed.message;
  }

  /** Writes the call's ledger record. Handlers call this before answering, so a hang-up loses nothing. */
  async complete(id: RequestId, outcome: Outcome): Promise<void> {
    const call = this.calls.get(id);
    if (!call || call.outcome) return;
    call.outcome = outcome;
    const { notes } = call;
    const record: CallRecord = {
      event: 'call',
      perimeter: this.services.perimeter,
      tool: call.tool,
      paths: notes.paths,
      decision: outcome.decision,
      upstream: call.meter.stop(),
      duration_ms: Date.now() - call.started,
      ...(notes.sha !== undefined ? { sha: notes.sha } : {}),
      ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
      ...(notes.refusedFor !== undefined ? { refused_for: notes.refusedFor } : {}),
      ...(notes.commit !== undefined ? { commit: notes.commit } : {}),
      ...(notes.message !== undefined ? { message: notes.message } : {}),
      ...(notes.content !== undefined ? { content: notes.content } : {}),
      ...(notes.scope !== undefined ? { scope: notes.scope } : {}),
      ...(outcome.hidden ? { hidden_values: outcome.hidden, hidden_kinds: outcome.kinds ?? {} } : {}),
    };
    try {
      await this.services.ledger.append(await this.scrubRecord(record));
    } catch (error) {
      this.services.log(`ledger append failed: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    this.calls.delete(id);
    if (this.calls.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Tool names, paths and reasons can carry what an agent typed, secrets included: they pass the filter too. */
  private async scrubRecord(record: CallRecord): Promise<CallRecord> {
    const { tool, paths, reason, sha, content } = record;
    try {
      return {
        ...record,
        ...(await new Redactor(this.services.filter).walk({ tool, paths, reason, sha, content })),
      };
    } catch {
      return {
        ...record,
        tool: '[withheld]',
        paths: paths.map(() => '[withheld]'),
        content: content?.map((c) => ({ ...c, path: '[withheld]' })),
        reason: 'withheld: the filter failed',
        sha: undefined,
      };
    }
  }

  /** Answers the SDK produced without a handler echo the agent's own arguments; they pass the filter too. */
  private async scrubUnhandled(message: JSONRPCMessage): Promise<{ message: JSONRPCMessage; text: string }> {
    const redact = async (text: string): Promise<string> => {
      try {
        return (await this.services.filter.redact(text)).text;
      } catch {
        return 'the answer could not be checked for secrets, so it is withheld';
      }
    };
    if ('error' in message) {
      const text = await redact(message.error.message);
      return { message: { ...message, error: { code: message.error.code, message: text } }, text };
    }
    if ('result' in message) {
      const content = Array.isArray(message.result.content)
        ? (message.result.content as Array<{ type: string; text?: string }>)
        : [];
      const texts = await Promise.all(
        content.map((c) =>
          c.type === 'text' && typeof c.text === 'string' ? redact(c.text) : Promise.resolve(''),
        ),
      );
      const text = texts.join('\n');
      return { message: { ...message, result: { content: [{ type: 'text', text }], isError: true } }, text };
    }
    return { message, text: '' };
  }
}

/** A transport that shows every incoming message to the tracker first and every answer on its way out. */
export class TrackingTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly inner: Transport,
    private readonly tracker: CallTracker,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      tracker.begin(message);
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion = (version: string): void => this.inner.setProtocolVersion?.(version);

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(await this.tracker.finish(message), options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
