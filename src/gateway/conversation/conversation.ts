/**
 * The conversation around the agent's change, for the conversation tools: THE pull request from the bound
 * branch, comments on it and on the thread whose event started the run, and reading those two threads. What
 * the agent may do is its perimeter's `conversation` rule (src/policy/conversation/rules.ts); which threads
 * exist here is the trusted process's word (main read the event payload), never the agent's.
 */
import type { ConversationRequest, Conversations, PullRequests, RepoReads } from '../../github/index.js';
import {
  commentProblem,
  CONVERSATION_DEFAULTS,
  massMentionProblem,
  MENTION,
  mentionAllowed,
  pullRequestProblem,
  type ConversationRule,
  type Perimeter,
} from '../../policy/index.js';
import type { AnswerFilter } from '../../safety/answer-filter.js';
import { prepareOutgoing } from '../../safety/outgoing/outgoing-text.js';
import { ToolError } from '../tool-answer.js';

export interface ConversationSettings {
  /** owner/name */
  repository: string;
  branch: string;
  /** the issue or pull request whose event started the run (from the event payload main read); null: none */
  thread: number | null;
  /** where the job's receipt is explained: the run's page */
  receiptUrl: string | null;
  /** the commit status context of the receipt */
  statusContext: string;
  /** the record the job keeps (a workflow artifact), by name; null: none */
  record: string | null;
}

/** Which thread a comment or a read is for: the bound branch's pull request, or the run's trigger. */
export type ThreadChoice = 'pull_request' | 'trigger' | number;

const ONLY_THESE = "rule: the triggering thread and the bound branch's pull request only";

export const MAX_THREAD_COMMENTS = 200;

/** What open_pull_request did; with staged writes number and url are known only once apply has opened it. */
export interface PullRequestOutcome {
  number: number | null;
  url: string | null;
  action: 'opened' | 'updated';
  draft: boolean;
  base: string;
  staged?: true;
}

export interface CommentOutcome {
  number: number | null;
  url: string | null;
  remaining: number;
  staged?: true;
}

export class Conversation {
  private readonly posted = new Map<string, number>();
  private opened: number | null = null;

  constructor(
    private readonly upstream: Conversations &
      Pick<PullRequests, 'createPullRequest'> &
      Pick<RepoReads, 'getRepository'>,
    readonly settings: ConversationSettings,
    private readonly filter: AnswerFilter,
    /** with staged writes: keeps a request for the apply job, which judges it again and sends it */
    private readonly stage: ((request: ConversationRequest) => Promise<void>) | null = null,
  ) {}

  /** whether a pull request request was staged in this job (staged writes) */
  private stagedPull = false;

  rule(perimeter: Perimeter): ConversationRule {
    return perimeter.spec.conversation ?? CONVERSATION_DEFAULTS;
  }

  /** Text as it may be sent for this perimeter, or a refusal naming the rule. */
  async outgoing(perimeter: Perimeter, text: string, what: string): Promise<string> {
    const rule = this.rule(perimeter);
    const prepared = await prepareOutgoing(
      text,
      what,
      {
        mention: MENTION,
        mentionAllowed: (handle) => mentionAllowed(rule, handle),
        massMention: massMentionProblem,
        repository: this.settings.repository,
      },
      this.filter,
    );
    if (!prepared.ok) throw new ToolError(`refused: ${prepared.problem}`, 'refused');
    return prepared.text;
  }

  /** The lines Perimeter appends to the pull request's body: who made it, and where its receipt and record are. */
  footer(perimeter: Perimeter): string {
    const { receiptUrl, statusContext, record, branch } = this.settings;
    const receipt =
      receiptUrl === null
        ? `the \`${statusContext}\` commit status`
        : `[the \`${statusContext}\` receipt](${receiptUrl})`;
    return [
      '',
      '---',
      `Made by perimeter \`${perimeter.name}\` from branch \`${branch}\` through Perimeter; ${receipt} says what it pushed and whether every change stayed inside it.` +
        (record === null ? '' : ` The job's record is the workflow artifact \`${record}\`.`),
    ].join('\n');
  }

  /** Opens the pull request from the bound branch, or updates the open one (one per branch). */
  async openOrUpdate(
    perimeter: Perimeter,
    ask: {
      title: string;
      body: string;
      base?: string | undefined;
      draft?: boolean | undefined;
      labels?: string[] | undefined;
    },
  ): Promise<PullRequestOutcome> {
    const rule = this.rule(perimeter);
    const existing = await this.upstream.findOpenPullRequest(this.settings.branch);
    const defaultBranch = (await this.upstream.getRepository()).defaultBranch;
    const base = ask.base ?? existing?.base ?? defaultBranch;
    const draft = ask.draft ?? existing?.draft ?? rule.draftOnly;
    const labels = ask.labels ?? [];
    const problem = pullRequestProblem(rule, { base, draft, labels }, defaultBranch);
    if (problem !== null) throw new ToolError(`refused: ${problem}`, 'refused');
    if (existing !== null && base !== existing.base)
      throw new ToolError(
        `refused: the pull request from ${this.settings.branch} (#${existing.number}) targets "${existing.base}"; its base is not changed here`,
        'refused',
      );
    if (existing !== null && ask.draft !== undefined && ask.draft !== existing.draft)
      throw new ToolError(
        `refused: pull request #${existing.number} is ${existing.draft ? 'a draft' : 'ready for review'}; a person changes that, not this tool`,
        'refused',
      );
    const title = (await this.outgoing(perimeter, ask.title, 'the title')).replace(/\s+/g, ' ').trim();
    if (title === '') throw new ToolError('refused: the title is empty', 'refused');
    const body = `${await this.outgoing(perimeter, ask.body, 'the body')}\n${this.footer(perimeter)}`;
    if (this.stage !== null) {
      // the agent's own text: apply prepares it again (a prepared text would be marked a second time)
      await this.stage({
        kind: 'pull_request',
        perimeter: perimeter.name,
        title: ask.title,
        body: ask.body,
        base,
        draft,
        labels,
      });
      this.stagedPull = true;
      const action = existing === null ? 'opened' : 'updated';
      return {
        number: existing?.number ?? null,
        url: existing?.url ?? null,
        action,
        draft,
        base,
        staged: true,
      };
    }
    if (existing === null) {
      const made = await this.upstream.createPullRequest({
        title,
        body,
        head: this.settings.branch,
        base,
        draft,
        labels,
      });
      this.opened = made.number;
      return { ...made, action: 'opened', draft, base };
    }
    const updated = await this.upstream.updatePullRequest(existing.number, { title, body });
    const more = labels.filter((l) => !existing.labels.includes(l));
    if (more.length > 0) await this.upstream.addLabels(existing.number, more);
    this.opened = existing.number;
    return { number: updated.number, url: updated.url, action: 'updated', draft: existing.draft, base };
  }

  /**
   * The thread a choice names, by name and number, or a refusal: a number is taken only when it is the
   * triggering thread's or the bound branch's pull request's. With staged writes the pull request may be one
   * staged in this job (number null: the apply job opens it).
   */
  async resolveThread(
    choice: ThreadChoice,
  ): Promise<{ name: 'pull_request' | 'trigger'; number: number | null }> {
    if (choice === 'trigger' || (typeof choice === 'number' && choice === this.settings.thread)) {
      if (this.settings.thread === null)
        throw new ToolError(
          `refused: this run was not started by an issue or pull request event, so there is no thread to answer (${ONLY_THESE})`,
          'refused',
        );
      return { name: 'trigger', number: this.settings.thread };
    }
    const open =
      this.opened ?? (await this.upstream.findOpenPullRequest(this.settings.branch))?.number ?? null;
    if (choice === 'pull_request') {
      if (open === null && !this.stagedPull)
        throw new ToolError(
          `refused: no pull request is open from ${this.settings.branch}; open it with open_pull_request first`,
          'refused',
        );
      this.opened = open;
      return { name: 'pull_request', number: open };
    }
    if (choice === open) return { name: 'pull_request', number: open };
    const these = [
      this.settings.thread === null ? null : `#${this.settings.thread} (the trigger)`,
      open === null ? null : `#${open} (the pull request from ${this.settings.branch})`,
    ].filter((t) => t !== null);
    throw new ToolError(
      `refused: #${choice} is not a thread of this run; this perimeter may use ${these.join(' and ') || 'none yet'} (${ONLY_THESE})`,
      'refused',
    );
  }

  /** The number of a thread to read: a staged pull request cannot be read before apply opens it. */
  async threadNumber(choice: ThreadChoice): Promise<number> {
    const { number } = await this.resolveThread(choice);
    if (number === null)
      throw new ToolError(
        `refused: the pull request from ${this.settings.branch} is staged; the apply job opens it`,
        'refused',
      );
    return number;
  }

  /** Comments on a thread of this run; `note` is Perimeter's own line under the agent's text (apply's outcome). */
  async comment(
    perimeter: Perimeter,
    choice: ThreadChoice,
    text: string,
    note = '',
  ): Promise<CommentOutcome> {
    const rule = this.rule(perimeter);
    const already = this.posted.get(perimeter.name) ?? 0;
    const problem = commentProblem(rule, already);
    if (problem !== null) throw new ToolError(`refused: ${problem}`, 'refused');
    const body = await this.outgoing(perimeter, text, 'the comment');
    if (body.trim() === '') throw new ToolError('refused: the comment is empty', 'refused');
    const thread = await this.resolveThread(choice);
    // counted before it is sent: a comment whose answer was lost may have landed
    this.posted.set(perimeter.name, already + 1);
    const remaining = rule.commentsPerRun - already - 1;
    if (this.stage !== null) {
      await this.stage({ kind: 'comment', perimeter: perimeter.name, thread: thread.name, body: text });
      return { number: thread.number, url: null, remaining, staged: true };
    }
    if (thread.number === null) throw new ToolError('refused: no pull request to comment on', 'refused');
    const made = await this.upstream.createIssueComment(
      thread.number,
      `${body}\n\n${note === '' ? '' : `${note}\n\n`}<sub>— perimeter \`${perimeter.name}\`</sub>`,
    );
    return { number: thread.number, url: made.url, remaining };
  }

  async read(choice: ThreadChoice) {
    const number = await this.threadNumber(choice);
    const thread = await this.upstream.getThread(number, MAX_THREAD_COMMENTS);
    const logins = [
      ...new Set(
        [thread.opening, ...thread.comments].map((p) => p.author).filter((a): a is string => a !== null),
      ),
    ];
    const permissions = new Map(
      await Promise.all(
        logins.map(async (login) => [login, await this.upstream.getPermission(login)] as const),
      ),
    );
    return { thread, permissions };
  }
}
