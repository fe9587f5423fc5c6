/**
 * The scripted model's part, the same for every client: a fixed sequence of tool calls on one perimeter and
 * a check of each answer as the client handed it back. It is stateless per request: the step is read from
 * the conversation the client sends, so a client that retries a request gets the same turn again.
 */

/** A perimeter tool as the client names it to the model, by the gateway's tool name. */
export type ToolNames = Partial<Record<string, string>>;

/** What one request of the conversation tells: the tools offered and the calls made so far, in order. */
export interface Conversation {
  /** every tool name offered to the model in this request */
  offered: string[];
  /** calls the model made so far (by the client's tool name) with the text the client returned */
  calls: Array<{ name: string; result: string | undefined }>;
}

/** The model's next turn: a tool call or a closing text. */
export type Turn =
  { kind: 'call'; name: string; input: Record<string, unknown> } | { kind: 'text'; text: string };

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ScriptFiles {
  /** a readable file and a line of its content */
  readable: { path: string; expect: string };
  /** a file outside the perimeter's read globs */
  hidden: string;
  /** a path that exists nowhere */
  missing: string;
  /** a push outside the write globs */
  outside: { path: string; content: string };
  /** a push inside the write globs */
  inside: { path: string; content: string };
}

export const TOOLS = [
  'get_tree',
  'get_file',
  'get_files',
  'push_files',
  'list_commits',
  'get_commit',
  'search',
  'blame',
];
/** The conversation tools (issue 44), offered only to a perimeter that lists them. */
export const CONVERSATION_TOOLS = ['read_thread', 'open_pull_request', 'add_comment'];

export interface Step {
  tool: string;
  /** the call's arguments, or how they follow from the earlier results */
  input: Record<string, unknown> | ((earlier: string[]) => Record<string, unknown>);
  /** checks on this step's answer (and earlier ones); returns the checks it made */
  check(result: string, earlier: string[]): Check[];
}

function steps(files: ScriptFiles): Step[] {
  return [
    {
      tool: 'get_file',
      input: { path: files.readable.path },
      check: (result) => [
        check('read a file', result.includes(files.readable.expect), result),
        check(
          'file content given to the model once',
          count(result, files.readable.expect) === 1,
          `${count(result, files.readable.expect)} copies in ${JSON.stringify(result)}`,
        ),
      ],
    },
    { tool: 'get_file', input: { path: files.hidden }, check: () => [] },
    {
      tool: 'get_file',
      input: { path: files.missing },
      check: (result, earlier) => {
        const hidden = clientNoise((earlier[1] ?? '').split(files.hidden).join('<path>'));
        const missing = clientNoise(result.split(files.missing).join('<path>'));
        return [
          check(
            'hidden file answered exactly like a missing one',
            hidden === missing && /not found|absent|no such/i.test(missing),
            `hidden: ${JSON.stringify(hidden)} missing: ${JSON.stringify(missing)}`,
          ),
        ];
      },
    },
    {
      tool: 'push_files',
      input: { message: 'Out of scope', files: [files.outside] },
      check: (result) => [
        check(
          'out-of-scope push refused',
          /refused/i.test(result) && result.includes(files.outside.path),
          result,
        ),
      ],
    },
    {
      tool: 'push_files',
      input: { message: 'In scope', files: [files.inside] },
      check: (result) => [
        check('in-scope push landed', /[0-9a-f]{40}/.test(result) && !/refused/i.test(result), result),
      ],
    },
    {
      // find where something is defined, as an agent does before it reads file after file
      tool: 'search',
      input: { pattern: files.readable.expect },
      check: (result) => [
        check(
          'search found the definition',
          result.includes(`"path":"${files.readable.path}"`) && result.includes(files.readable.expect),
          result,
        ),
      ],
    },
    {
      // and ask who last changed it, at the path the search answered
      tool: 'blame',
      input: (earlier) => ({ path: /"path":"([^"]+)"/.exec(earlier.at(-1) ?? '')?.[1] ?? '' }),
      check: (result) => [
        check(
          'blame answered the definition with its commit',
          /"commit":"[0-9a-f]{40}"/.test(result) && result.includes(files.readable.expect),
          result,
        ),
      ],
    },
  ];
}

/**
 * The issue-comment session: read the thread that started the run, push a file inside `write`, open the
 * pull request from the bound branch, reply in the triggering thread. Each answer is checked as the client
 * handed it to the model; what landed on GitHub the case checks in the stand-in.
 */
export function conversationSteps(command: string, inside: { path: string; content: string }): Step[] {
  return [
    {
      tool: 'read_thread',
      input: { thread: 'trigger' },
      check: (result) => [
        check(
          'thread read, the command in it',
          result.includes(command) && /has write access/.test(result),
          result,
        ),
      ],
    },
    {
      tool: 'push_files',
      input: { message: `Add ${inside.path}`, files: [inside] },
      check: (result) => [
        check('in-scope push landed', /[0-9a-f]{40}/.test(result) && !/refused/i.test(result), result),
      ],
    },
    {
      tool: 'open_pull_request',
      input: { title: `Add ${inside.path}`, body: 'As the issue asks.', labels: ['agent'] },
      check: (result) => [
        check('pull request opened', /action\W+opened/.test(result) && !/refused/i.test(result), result),
      ],
    },
    {
      tool: 'add_comment',
      input: { thread: 'trigger', body: `Opened a pull request adding ${inside.path}.` },
      check: (result) => [check('replied in the thread', /remaining\W+\d/.test(result), result)],
    },
  ];
}

/** What a client adds around the gateway's answer and varies per call (Codex: "Wall time: 0.02 seconds"). */
function clientNoise(text: string): string {
  return text.replace(/^Wall time: [\d.]+ seconds\n/, '');
}

function check(name: string, ok: boolean, detail: string): Check {
  return { name, ok, detail: detail.slice(0, 600) };
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** One client's session: decides each turn and keeps the latest result of every check. */
export class Script {
  private readonly plan: Step[];
  private readonly results = new Map<string, Check>();

  constructor(
    /** the files of the gateway tools' session, or another session's steps */
    files: ScriptFiles | Step[],
    /** the client's name for a gateway tool, or undefined when the client does not offer it */
    private readonly nameOf: (offered: string[], tool: string) => string | undefined,
  ) {
    this.plan = Array.isArray(files) ? files : steps(files);
    this.tools = [...new Set([...TOOLS, ...this.plan.map((s) => s.tool)])];
  }

  /** the gateway tools the session names: every repository tool, and those its steps call */
  private readonly tools: string[];

  get checks(): Check[] {
    return [...this.results.values()];
  }

  /** Whether this request belongs to the scripted session (clients also send side requests: titles, probes). */
  mine(conversation: Conversation): boolean {
    return this.nameOf(conversation.offered, 'get_file') !== undefined || conversation.calls.length > 0;
  }

  /** The client's names for the perimeter's tools among those offered. */
  names(offered: string[]): string[] {
    return this.tools.map((t) => this.nameOf(offered, t)).filter((n): n is string => n !== undefined);
  }

  next(conversation: Conversation): Turn {
    const ours = conversation.calls.filter((c) => this.toolOf(conversation.offered, c.name) !== undefined);
    if (ours.length === 0) {
      const names = this.tools.map((t) => this.nameOf(conversation.offered, t));
      this.record(check('tools listed', names.every(Boolean), `offered: ${conversation.offered.join(', ')}`));
    }
    const results = ours.map((c) => c.result ?? '');
    for (const [i, result] of results.entries()) {
      for (const c of this.plan[i]?.check(result, results) ?? []) this.record(c);
    }
    const step = this.plan[ours.length];
    if (!step) return { kind: 'text', text: 'Done: read, refused and pushed as scripted.' };
    const name = this.nameOf(conversation.offered, step.tool);
    if (!name) {
      this.record(check(`tool ${step.tool} offered`, false, `offered: ${conversation.offered.join(', ')}`));
      return { kind: 'text', text: `Stopped: ${step.tool} is not offered.` };
    }
    return { kind: 'call', name, input: typeof step.input === 'function' ? step.input(results) : step.input };
  }

  private toolOf(offered: string[], name: string): string | undefined {
    return this.tools.find((t) => this.nameOf([...offered, name], t) === name);
  }

  private record(c: Check): void {
    this.results.set(c.name, c);
  }
}

/** What the model server asks of a script, whichever it is. */
export type Scripted = Pick<Script, 'mine' | 'names' | 'next' | 'checks'>;

/** The local edit tools a client may offer, in the order the workspace script prefers them. */
const EDIT_TOOLS = ['Write', 'shell_command', 'shell', 'exec_command'];

/**
 * The workspace session: the model writes one file in its working directory with the client's own edit tool,
 * and nothing else; the push through the gateway is the workflow's next command, not the model's. The
 * directory is known only once main has run, hence a function.
 */
export class WorkspaceScript implements Scripted {
  private readonly results = new Map<string, Check>();

  constructor(
    private readonly file: { path: string; content: string },
    private readonly dir: () => string,
  ) {}

  get checks(): Check[] {
    return [...this.results.values()];
  }

  mine(conversation: Conversation): boolean {
    return this.editTool(conversation.offered) !== undefined || conversation.calls.length > 0;
  }

  /** No gateway tool is called, so none need loading. */
  names(): string[] {
    return [];
  }

  next(conversation: Conversation): Turn {
    const edit = conversation.calls.find((c) => EDIT_TOOLS.includes(c.name));
    if (edit) {
      this.record(check('edited a file with its own tool', edit.result !== undefined, edit.result ?? ''));
      return { kind: 'text', text: `Done: wrote ${this.file.path}.` };
    }
    const tool = this.editTool(conversation.offered);
    if (!tool) {
      this.record(check('an edit tool offered', false, `offered: ${conversation.offered.join(', ')}`));
      return { kind: 'text', text: 'Stopped: no edit tool is offered.' };
    }
    const dir = this.dir();
    const heredoc = `cat > '${this.file.path}' <<'EOF'\n${this.file.content}EOF`;
    const input: Record<string, Record<string, unknown>> = {
      Write: { file_path: `${dir}/${this.file.path}`, content: this.file.content },
      shell_command: { command: heredoc, workdir: dir },
      shell: { command: ['bash', '-lc', heredoc], workdir: dir },
      exec_command: { cmd: heredoc, workdir: dir },
    };
    return { kind: 'call', name: tool, input: input[tool]! };
  }

  private editTool(offered: string[]): string | undefined {
    return EDIT_TOOLS.find((t) => offered.includes(t));
  }

  private record(c: Check): void {
    this.results.set(c.name, c);
  }
}
