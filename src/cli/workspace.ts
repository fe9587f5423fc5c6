import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resolve } from 'node:path';
import { readWorkspaceState, writeWorkspaceState, type WorkspaceState } from '../clients/workspace-state.js';
import { ANSWER_META } from '../gateway/serving/answers.js';
import { VERSION } from '../version.js';
import { parseCommandArgs, renderHelp, type Flags } from './args.js';
import { EXIT_ERRORS, EXIT_OK, UsageError, type CliIo } from './io.js';
import { diffWorkspace, type WorkspaceDiff } from './workspace-diff.js';

export const WORKSPACE_USAGE = 'perimeter workspace push --state FILE --message MESSAGE [--json]';

export const WORKSPACE_FLAGS = {
  state: {
    type: 'string',
    value: 'FILE',
    help: "the workspace's state file, as the action's workspace-push-<perimeter> output names it",
  },
  message: { type: 'string', value: 'MESSAGE', help: 'the commit message' },
  json: { type: 'boolean', default: false, help: "print push_files' answer as JSON" },
} satisfies Flags;

export const WORKSPACE_HELP = renderHelp({
  usage: WORKSPACE_USAGE,
  about:
    "Sends what changed in a perimeter's workspace (written, added and deleted files, against what was handed out or last pushed) to the perimeter's gateway endpoint as one push_files call, judged as push_files is judged: anything outside the perimeter refuses the whole push, and the directory stays as it is.",
  args: { push: 'the only subcommand' },
  flags: WORKSPACE_FLAGS,
  exits: '0 pushed (or nothing to push); 1 refused or failed, with the reason; 2 bad usage.',
});

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, WORKSPACE_FLAGS, true);
  if (positionals.length !== 1 || positionals[0] !== 'push')
    throw new UsageError(`expected the subcommand push, got ${JSON.stringify(positionals.join(' '))}`);
  if (!values.state) throw new UsageError('--state FILE is required');
  if (!values.message) throw new UsageError('--message MESSAGE is required');
  const statePath = resolve(io.cwd, values.state);
  const state = readWorkspaceState(statePath);
  const diff = await diffWorkspace(state);
  for (const note of diff.notes) io.stderr(`note: ${note}\n`);
  if (diff.refused.length > 0) {
    io.stderr(`nothing was pushed: ${diff.refused.join('; ')}\n`);
    return EXIT_ERRORS;
  }
  if (diff.files.length === 0 && diff.deletions.length === 0) {
    io.stdout(`nothing to push: ${state.dir} is as handed out\n`);
    return EXIT_OK;
  }
  const answer = await pushFiles(state, values.message, diff);
  if (answer.refused !== null) {
    io.stderr(`nothing was pushed: ${answer.refused}\n`);
    return EXIT_ERRORS;
  }
  const pushed = answer.pushed as { commit: string | null; head: string; staged?: true };
  recordPush(statePath, state, diff, pushed.head);
  if (values.json) io.stdout(`${JSON.stringify(pushed)}\n`);
  else
    io.stdout(
      `${pushed.staged ? 'staged' : 'pushed'} ${diff.files.length} file(s), ${diff.deletions.length} deletion(s) ` +
        `to ${state.branch} as ${pushed.commit ?? '(no change)'} through perimeter ${state.perimeter}\n`,
    );
  return EXIT_OK;
}

/** One push_files call to the perimeter's endpoint: its answer, or why it was refused. */
async function pushFiles(
  state: WorkspaceState,
  message: string,
  diff: WorkspaceDiff,
): Promise<{ pushed: unknown; refused: string | null }> {
  const client = new Client({ name: 'perimeter-workspace', version: VERSION });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(state.url), {
      requestInit: { headers: { authorization: `Bearer ${state.secret}` } },
    }),
  );
  try {
    const result = (await client.callTool({
      name: 'push_files',
      arguments: { message, files: diff.files, deletions: diff.deletions },
    })) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    if (result.isError) return { pushed: null, refused: text };
    return { pushed: result._meta?.[ANSWER_META] ?? JSON.parse(text), refused: null };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * After a push: the state says what is now on the branch, so a second push sends only what changed since. No
 * git runs in the directory (its configuration is the agent's); its history stays the hand-out's commit.
 */
function recordPush(statePath: string, state: WorkspaceState, diff: WorkspaceDiff, head: string): void {
  const files = { ...state.files, ...diff.written };
  for (const path of diff.deletions) delete files[path];
  writeWorkspaceState(statePath, { ...state, head, files });
}
