/**
 * The real agent clients against the action's dist/, each driven by a scripted local model: README's
 * workflows run whole (the model route is the only addition), then post must post `success`.
 * Run with `npm run test:agents` (its own vitest config: `npm test` does not run it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { actionDir, git, removeRunnerUser } from '@perimeter/test-rigs';
import { ensureClients } from './clients.js';
import { modelTls, ROGUE_HOST } from './model-tls.js';
import { reachTable } from './readme-jobs.js';
import { WorkspaceScript } from './script.js';
import {
  gateVariation,
  ISSUE_BRANCH,
  ISSUE_NUMBER,
  issueCommentVariation,
  pullRequests,
  reviewVariation,
} from './readme-variations.js';
import {
  CLIENTS,
  egressOf,
  postLog,
  receipt,
  REVIEWER,
  runReadmeJob as runWith,
  type ClientCase,
  type Session,
  type Variation,
} from './sessions.js';
import { madeRunnerUser, type Reach } from './workflow-runner.js';

/** README's workflow run whole; what its agent steps could reach is kept when it runs as README shows it. */
async function runReadmeJob(client: ClientCase, options: Variation = {}): Promise<Session> {
  const session = await runWith(dir, client, options);
  if (!options.edit && !options.afterMain && !options.files) {
    reached.set(options.snippet ?? client.name, session.run.reach);
  }
  return session;
}

/** Each step of a run with the end of its log, for a failing assertion's message. */
function runReport({ run }: Session): string {
  return run.steps.map((s) => `${s.job}/${s.name}: ${s.outcome}\n${s.log.slice(-3000)}`).join('\n');
}

let dir = '';
/** what the agent steps of each README workflow could reach, run as README shows it */
const reached = new Map<string, Reach[]>();
const outcomes: Array<{ test: string; ok: boolean }> = [];

/** Counts each test for the closing `agents: N passed, N failed` line. */
function counted(name: string): void {
  onTestFinished(({ task }) => {
    outcomes.push({ test: name, ok: task.result?.state === 'pass' });
  });
}

beforeAll(async () => {
  // in the sandbox, or a clear error saying how to run it (test/agents/sandbox.ts)
  await modelTls();
  const install = await ensureClients((line) => console.log(line));
  console.log(
    `agent clients ${install.cached ? 'found in' : 'installed into'} ${install.dir} in ${install.ms} ms`,
  );
  dir = await actionDir();
}, 900_000);

/**
 * README's table "can the agent reach a write token?" must say what the runs found, for every workflow run
 * here as README shows it.
 */
afterAll(() => {
  const table = reachTable();
  for (const [snippet, reach] of reached) {
    const token = reach.some((r) => r.found.length > 0);
    const write = reach.some((r) => r.found.length > 0 && r.writeToken);
    const where = reach.flatMap((r) => r.found);
    expect(table.get(snippet), `README's token table for ${snippet} (found: ${where.join(', ')})`).toEqual({
      token: token ? 'yes' : 'no',
      write: write ? 'yes' : 'no',
    });
  }
});

afterAll(() => {
  if (madeRunnerUser()) removeRunnerUser();
  const passed = outcomes.filter((o) => o.ok).length;
  console.log(`agents: ${passed} passed, ${outcomes.length - passed} failed`);
});

describe('the real agent clients, as README shows them', () => {
  for (const client of CLIENTS) {
    it(client.name, { timeout: 600_000 }, async () => {
      counted(client.name);
      let session: Session | undefined;
      try {
        session = await runReadmeJob(client);
        const { checks, stepLogs, model, job } = session;
        const report = [
          ...checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`),
          'model requests:',
          ...model.log.map((l) => `  ${l}`),
          'client step:',
          ...stepLogs.map((l) => l.slice(-4000)),
        ].join('\n');
        console.log(`--- ${client.name}\n${report}`);
        if (process.env.AGENTS_DUMP) {
          writeFileSync(
            join(process.env.AGENTS_DUMP, `${client.name}.json`),
            JSON.stringify(model.bodies, null, 1),
          );
        }
        expect(checks.map((c) => c.name).sort()).toEqual(
          [
            'tools listed',
            'read a file',
            'file content given to the model once',
            'hidden file answered exactly like a missing one',
            'out-of-scope push refused',
            'in-scope push landed',
            'search found the definition',
            'blame answered the definition with its commit',
          ].sort(),
        );
        expect(
          checks.filter((c) => !c.ok),
          report,
        ).toEqual([]);
        expect(stepLogs.length, report).toBeGreaterThan(0);
        expect(
          stepLogs.every((l) => l.startsWith('exit 0')),
          report,
        ).toBe(true);
        const pushed = await git(job.bare, ['ls-tree', '-r', '--name-only', job.branch]);
        expect(pushed).toContain(`src/from-${client.name}.ts`);
        expect(pushed).not.toContain('docs/agent-notes.md');
        expect(session.run.results, report).toEqual({ implement: 'success' });
        expect(await receipt(session), postLog(session)).toBe('success');
        // run-agent's user reached its model through the egress proxy, as README's preset names it, and no
        // other host (the model answers only there: the agent's user cannot reach it on loopback directly);
        // what else the client asked for was refused, and is what README says it asks for
        const egress = egressOf(session);
        const reached = egress.filter((e) => !/ reached 0 /.test(e));
        expect(reached, postLog(session)).toEqual([
          expect.stringMatching(
            new RegExp(`^${client.modelHost.replace(/\./g, '\\.')}:443 reached [1-9]\\d* refused 0$`),
          ),
        ]);
        const refused = egress.filter((e) => / reached 0 /.test(e)).map((e) => e.split(':')[0]);
        expect(
          refused.filter((host) => !client.asksBesides.includes(host ?? '')),
          postLog(session),
        ).toEqual([]);
      } finally {
        await session?.model.stop();
        await session?.job.close();
      }
    });
  }
});

/**
 * The perimeter workspace: the client edits a file in its working directory with its own tool (no gateway
 * tool), the workflow's push command sends the change through the perimeter, and post posts `success`.
 */
describe('the real agent clients editing a perimeter workspace, as README shows them', () => {
  for (const client of CLIENTS.filter((c) => c.name === 'claude-code' || c.name === 'codex')) {
    const name = `${client.name}-workspace`;
    it(name, { timeout: 600_000 }, async () => {
      counted(name);
      const file = {
        path: `src/from-${client.name}.ts`,
        content: `export const from = ${JSON.stringify(client.name)};\n`,
      };
      let session: Session | undefined;
      try {
        session = await runReadmeJob(client, {
          snippet: name,
          task: `Add ${file.path}`,
          script: (job) =>
            new WorkspaceScript(file, () => job.runner.main?.outputs['workspace-implementer'] ?? ''),
        });
        const { checks, stepLogs, model, job } = session;
        const report = [
          ...checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`),
          'model requests:',
          ...model.log.map((l) => `  ${l}`),
          'client step:',
          ...stepLogs.map((l) => l.slice(-4000)),
        ].join('\n');
        console.log(`--- ${name}\n${report}`);
        if (process.env.AGENTS_DUMP) {
          writeFileSync(join(process.env.AGENTS_DUMP, `${name}.json`), JSON.stringify(model.bodies, null, 1));
        }
        expect(checks, report).toEqual([expect.objectContaining({ ok: true })]);
        expect(stepLogs.length, report).toBeGreaterThan(0);
        expect(
          stepLogs.every((l) => l.startsWith('exit 0')),
          report,
        ).toBe(true);
        const head = await job.head();
        expect(await git(job.bare, ['show', `${head}:${file.path}`])).toBe(file.content);
        expect((await git(job.bare, ['log', '-1', '--format=%s', head])).trim()).toBe(`Add ${file.path}`);
        expect(session.run.results, report).toEqual({ implement: 'success' });
        expect(await receipt(session), postLog(session)).toBe('success');
      } finally {
        await session?.model.stop();
        await session?.job.close();
      }
    });
  }
});

/** What the fixes are for: each variation undoes one, and the session must go wrong as it did before. */
/** The workflow without the line `pattern` matches (which must be there). */
function dropLine(pattern: RegExp): (workflow: string) => string {
  return (workflow) => {
    if (!pattern.test(workflow)) throw new Error(`no line ${pattern} in the workflow`);
    return workflow.replace(pattern, '');
  };
}

describe('without the fixes', () => {
  it.each([
    [
      'claude-code',
      'without `id: perimeter` the tools are gone and nothing lands',
      (w: string) => w.replace(/- id: perimeter\n( *)uses:/, '- uses:'),
    ],
    [
      'codex',
      'without `mkdir -p "$HOME/.codex"` the config step fails and nothing lands',
      dropLine(/^ *mkdir -p "\$HOME\/\.codex"\n/m),
    ],
  ] as const)('%s: %s', { timeout: 600_000 }, async (client, what, edit) => {
    counted(`${client}: ${what}`);
    const session = await runReadmeJob(
      CLIENTS.find((c) => c.name === client)!,
      { edit },
    );
    try {
      // without the id the step outputs are empty: claude starts with no MCP config, no tools, and exits 0
      expect(session.checks.filter((c) => c.ok).map((c) => c.name)).not.toContain('in-scope push landed');
      const pushed = await git(session.job.bare, ['ls-tree', '-r', '--name-only', session.job.branch]);
      expect(pushed).not.toContain(`src/from-${client}.ts`);
      if (client === 'codex') expect(session.run.results).toEqual({ implement: 'failure' });
    } finally {
      await session.model.stop();
      await session.job.close();
    }
  });

  const byName = (name: string) => CLIENTS.find((c) => c.name === name)!;
  const failed = (session: Session) => session.checks.filter((c) => !c.ok).map((c) => c.name);

  it(
    'codex: without default_tools_approval_mode, exec refuses the push before it reaches the gateway',
    { timeout: 600_000 },
    async () => {
      counted(
        'codex: without default_tools_approval_mode, exec refuses the push before it reaches the gateway',
      );
      const session = await runReadmeJob(byName('codex'), {
        afterMain: (job) => {
          const file = job.runner.main?.outputs['codex-config-implementer'] ?? '';
          writeFileSync(file, readFileSync(file, 'utf8').replace(/^default_tools_approval_mode.*\n/m, ''));
        },
      });
      try {
        expect(failed(session)).toContain('in-scope push landed');
        expect(session.checks.find((c) => c.name === 'in-scope push landed')?.detail).toContain(
          'requires approval, but approval policy is never',
        );
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    },
  );

  it(
    'codex: without the bearer variable (codex-action unprivileged-user), exec stops with an error',
    { timeout: 600_000 },
    async () => {
      counted(
        'codex: without the bearer variable (codex-action unprivileged-user), exec stops with an error',
      );
      const session = await runReadmeJob(byName('codex'), {
        edit: dropLine(/^ *PERIMETER_TOKEN_IMPLEMENTER:.*\n/m),
      });
      try {
        const log = session.stepLogs.join('\n');
        expect(log).not.toMatch(/^exit 0/);
        expect(log).toContain('PERIMETER_TOKEN_IMPLEMENTER');
        expect(session.model.log.some((l) => l.includes('call '))).toBe(false);
        console.log(`--- codex without its bearer variable\n${log.slice(-3000)}`);
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    },
  );

  it(
    'codex: without required = true, a missing variable hides the tools and exec exits 0',
    { timeout: 600_000 },
    async () => {
      counted('codex: without required = true, a missing variable hides the tools and exec exits 0');
      const session = await runReadmeJob(byName('codex'), {
        edit: dropLine(/^ *PERIMETER_TOKEN_IMPLEMENTER:.*\n/m),
        afterMain: (job) => {
          const file = job.runner.main?.outputs['codex-config-implementer'] ?? '';
          writeFileSync(file, readFileSync(file, 'utf8').replace(/^required = true\n/m, ''));
        },
      });
      try {
        expect(session.stepLogs[0]).toMatch(/^exit 0/);
        // the model never saw the perimeter's tools: no scripted turn, no check, no call
        expect(session.checks).toEqual([]);
        expect(session.model.log.some((l) => l.includes('call '))).toBe(false);
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    },
  );

  it(
    'claude-code: without --allowedTools, every call is denied and claude still exits 0',
    { timeout: 600_000 },
    async () => {
      counted('claude-code: without --allowedTools, every call is denied and claude still exits 0');
      const session = await runReadmeJob(byName('claude-code'), {
        edit: (workflow) => workflow.replace(/ --allowedTools mcp__implementer/, ''),
      });
      try {
        expect(failed(session)).toContain('read a file');
        expect(session.checks.find((c) => c.name === 'read a file')?.detail).toMatch(/permission|grant/i);
        expect(session.stepLogs[0]).toMatch(/^exit 0/);
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    },
  );
});

/**
 * A branch can carry its own `.mcp.json` (and the `.claude/settings.json` that enables its servers without a
 * prompt): with README's `--strict-mcp-config` Claude Code connects to none of them; without it, it tries the
 * checkout's server, a host `agent-egress` does not name: the egress proxy refuses it, and the receipt's summary
 * names it.
 */
describe('claude-code and the agent SDK with an .mcp.json in the checkout', () => {
  for (const [clientName, strict] of [
    ['claude-code', true],
    ['claude-code', false],
    // the SDK loads every settings source by default, .mcp.json included: README sets strictMcpConfig
    ['agent-sdk', true],
    ['agent-sdk', false],
  ] as const) {
    const name = strict
      ? `${clientName} as README shows it: no server of the checkout is reached`
      : `${clientName} without --strict-mcp-config: the checkout's server is tried, refused, and named`;
    it(name, { timeout: 600_000 }, async () => {
      counted(`.mcp.json: ${name}`);
      const client = CLIENTS.find((c) => c.name === clientName)!;
      const session = await runReadmeJob(client, {
        snippet: clientName,
        files: {
          '.mcp.json': JSON.stringify({
            mcpServers: { rogue: { type: 'http', url: `https://${ROGUE_HOST}/mcp` } },
          }),
          '.claude/settings.json': JSON.stringify({ enableAllProjectMcpServers: true }),
        },
        ...(!strict && {
          edit: (workflow: string) =>
            workflow.replace(' --strict-mcp-config', '').replace(/^ *strictMcpConfig: true,\n/m, ''),
        }),
      });
      try {
        const egress = egressOf(session);
        const rogue = egress.filter((e) => e.startsWith(`${ROGUE_HOST}:`));
        if (strict) {
          expect(rogue, postLog(session)).toEqual([]);
          expect(session.run.results).toEqual({ implement: 'success' });
          expect(await receipt(session)).toBe('success');
        } else {
          expect(rogue, postLog(session)).toEqual([
            expect.stringMatching(/:443 reached 0 refused [1-9]\d*$/),
          ]);
        }
        // the model still answered through the proxy: the refusal is the rogue server's alone
        expect(egress.some((e) => e.startsWith(`${client.modelHost}:443 reached `))).toBe(true);
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    });
  }
});

describe('the token search', () => {
  it(
    'finds the job token a checkout leaves without persist-credentials: false',
    { timeout: 600_000 },
    async () => {
      counted('the token search finds a persisted checkout credential');
      const session = await runReadmeJob(
        CLIENTS.find((c) => c.name === 'claude-code')!,
        {
          edit: dropLine(/^ *with: \{ persist-credentials: false \}\n/m),
        },
      );
      try {
        const found = session.run.reach.flatMap((r) => (r.writeToken ? r.found : []));
        // actions/checkout v7 keeps it in a file of its own under RUNNER_TEMP, which .git/config includes
        expect(found).toEqual([
          expect.stringMatching(
            new RegExp(`^${session.job.runner.runnerTemp}/git-credentials-[0-9a-f-]{36}\\.config$`),
          ),
        ]);
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    },
  );
});

/**
 * The gateway's memory, read as the agent step's user: README's Claude Code workflow as it stands
 * (`isolation: user`: the gateway is another user's and sudo is gone) and without `isolation: user` (the
 * gateway is a process of the step's own user). The search must find the write token only in the second.
 */
describe("the token search in the gateway's memory", () => {
  const claude = CLIENTS.find((c) => c.name === 'claude-code')!;
  const memory = (found: string[]) => found.filter((f) => f.startsWith('memory of the gateway'));
  it.each([
    ['with isolation: user, as README shows it', undefined, false],
    [
      'without isolation: user',
      dropLine(/(?<=^ *with: \{ perimeters: implementer), isolation: user(?=(, [a-z-]+: \w+)* \}$)/m),
      true,
    ],
  ] as const)('%s', { timeout: 600_000 }, async (what, edit, reached) => {
    counted(`the token search in the gateway's memory, ${what}`);
    const session = await runReadmeJob(claude, edit ? { edit } : {});
    try {
      const pid = session.job.gatewayPid();
      const found = session.run.reach.flatMap((r) => (r.writeToken ? memory(r.found) : []));
      expect(pid).toBeGreaterThan(0);
      expect(found).toEqual(reached ? [`memory of the gateway (pid ${pid}, as the same user)`] : []);
      expect(session.run.results).toEqual({ implement: 'success' });
    } finally {
      await session.model.stop();
      await session.job.close();
    }
  });
});

/**
 * README's other setups, whole, with Claude Code as the agent: the verify job judges the agent job from a
 * fresh runner; with staged writes the agent job can only read and the apply job lands the commit.
 */
describe('the setups with a later job, as README shows them', () => {
  const claude = CLIENTS.find((c) => c.name === 'claude-code')!;
  for (const [snippet, later] of [
    ['two-job', 'verify'],
    ['staged', 'apply'],
  ] as const) {
    it(snippet, { timeout: 600_000 }, async () => {
      counted(snippet);
      let session: Session | undefined;
      try {
        session = await runReadmeJob(claude, { snippet });
        const { checks, run, job } = session;
        const report = runReport(session);
        expect(
          checks.filter((c) => !c.ok),
          report,
        ).toEqual([]);
        expect(run.results, report).toEqual({ implement: 'success', [later]: 'success' });
        const pushed = await git(job.bare, ['ls-tree', '-r', '--name-only', job.branch]);
        expect(pushed).toContain('src/from-claude-code.ts');
        expect(await receipt(session), report).toBe('success');
      } finally {
        await session?.model.stop();
        await session?.job.close();
      }
    });
  }
});

/**
 * docs/agents.md's wrapper-action workflows, whole, each in a staged job: claude-code-action (the job's token,
 * which reaches Claude, can only read) and codex-action with `unprivileged-user` and two perimeters (its
 * strategies need sudo, so the gateway's memory is in reach, and the token there can only read).
 */
describe('the wrapper actions, as docs/agents.md shows them', () => {
  for (const [snippet, clientName, results] of [
    ['claude-code-action', 'claude-code', { implement: 'success', apply: 'success' }],
    ['codex-action', 'codex', { implement: 'success', apply: 'success' }],
  ] as const) {
    it(snippet, { timeout: 600_000 }, async () => {
      counted(snippet);
      let session: Session | undefined;
      try {
        session = await runReadmeJob(
          CLIENTS.find((c) => c.name === clientName)!,
          { snippet },
        );
        const { checks, run, job } = session;
        const report = runReport(session);
        expect(checks.length, report).toBeGreaterThan(0);
        expect(
          checks.filter((c) => !c.ok),
          report,
        ).toEqual([]);
        expect(run.results, report).toEqual(results);
        const pushed = await git(job.bare, ['ls-tree', '-r', '--name-only', job.branch]);
        expect(pushed).toContain(`src/from-${clientName}.ts`);
        expect(await receipt(session), report).toBe('success');
      } finally {
        await session?.model.stop();
        await session?.job.close();
      }
    });
  }

  it('codex-action: with the header of one perimeter only, codex stops', { timeout: 600_000 }, async () => {
    counted('codex-action: with the header of one perimeter only, codex stops');
    const session = await runReadmeJob(
      CLIENTS.find((c) => c.name === 'codex')!,
      {
        snippet: 'codex-action',
        edit: dropLine(/^ *test-author "\$SECRET_TEST_AUTHOR" \\\n/m),
      },
    );
    try {
      expect(session.run.results).toEqual({ implement: 'failure', apply: 'skipped' });
      expect(session.stepLogs.join('\n')).toMatch(/test-author/);
    } finally {
      await session.model.stop();
      await session.job.close();
    }
  });
});

describe('any MCP client, as README shows it', () => {
  it('any-client: curl reads a file through the endpoint', { timeout: 600_000 }, async () => {
    counted('any-client');
    // the client case only supplies a model server nobody calls: curl is the agent here
    const session = await runReadmeJob(
      CLIENTS.find((c) => c.name === 'claude-code')!,
      {
        snippet: 'any-client',
        files: { 'src/index.ts': 'export const index = 1;\n' },
      },
    );
    // the file is the repository's, not a change to the workflow: README's table must say what curl reached
    reached.set('any-client', session.run.reach);
    try {
      const report = session.run.steps.map((s) => `${s.name}: ${s.outcome}\n${s.log}`).join('\n');
      expect(session.run.results, report).toEqual({ implement: 'success' });
      expect(session.stepLogs.join('\n'), report).toContain('export const index = 1;');
      expect(await receipt(session)).toBe('success');
    } finally {
      await session.model.stop();
      await session.job.close();
    }
  });
});

/**
 * README's review workflow (a staged job, then apply with a second identity's review token) and the pull-request
 * gate (perimeter/verify on Copilot coding agent's pull request), whole.
 */
describe('the review workflow and the pull-request gate, as README shows them', () => {
  it(
    'review: the file the review globs name goes to a draft pull request, changes requested',
    {
      timeout: 600_000,
    },
    async () => {
      counted('review');
      const client = CLIENTS.find((c) => c.name === 'claude-code')!;
      const session = await runReadmeJob(client, reviewVariation(client));
      reached.set('review', session.run.reach);
      try {
        const { checks, run, job } = session;
        const report = runReport(session);
        expect(checks.length, report).toBeGreaterThan(0);
        expect(
          checks.filter((c) => !c.ok),
          report,
        ).toEqual([]);
        expect(run.results, report).toEqual({ implement: 'success', apply: 'success' });
        // the bound branch stays put; the change waits in a draft pull request the reviewer asked changes of
        expect(await git(job.bare, ['ls-tree', '-r', '--name-only', job.branch])).not.toContain('docs/from-');
        expect(await pullRequests(job, run.observer)).toMatch(
          new RegExp(`^#1 perimeter/review/4242-1 draft: ${REVIEWER} CHANGES_REQUESTED$`),
        );
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    },
  );

  it(
    'pull-request-gate: Copilot pull request inside its perimeter, success on its head',
    {
      timeout: 600_000,
    },
    async () => {
      counted('pull-request-gate');
      // the client case only supplies a model server nobody calls: no agent runs in the gate's job
      const session = await runReadmeJob(
        CLIENTS.find((c) => c.name === 'claude-code')!,
        gateVariation(),
      );
      try {
        const report = session.run.steps.map((s) => `${s.name}: ${s.outcome}\n${s.log}`).join('\n');
        expect(session.run.results, report).toEqual({ perimeter: 'success' });
        expect(await receipt(session), report).toBe('success');
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    },
  );
});

/**
 * README's issue-comment workflow (docs/conversation.md's with Codex), whole: an `issue_comment` event starts
 * it, its own step makes the bound branch, the agent reads the thread, pushes, opens the pull request and
 * replies in the issue; the receipt's summary links the pull request.
 */
describe('from an issue comment to a pull request, as README shows it', () => {
  for (const [snippet, clientName] of [
    ['issue-comment', 'claude-code'],
    ['issue-comment-codex', 'codex'],
  ] as const) {
    it(snippet, { timeout: 600_000 }, async () => {
      counted(snippet);
      const client = CLIENTS.find((c) => c.name === clientName)!;
      let session: Session | undefined;
      try {
        session = await runWith(dir, client, { ...issueCommentVariation(client), snippet });
        // the agent step's reach: the step before it that makes the branch is the job's, not the agent's
        reached.set(
          snippet,
          session.run.reach.filter((r) => !r.step.startsWith('The bound branch')),
        );
        const { checks, run, job } = session;
        const report = [
          ...checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`),
          'model requests:',
          ...session.model.log.map((l) => `  ${l}`),
          runReport(session),
        ].join('\n');
        console.log(`--- ${snippet}\n${report.slice(-20000)}`);
        expect(checks.map((c) => c.name).sort(), report).toEqual(
          [
            'tools listed',
            'thread read, the command in it',
            'in-scope push landed',
            'pull request opened',
            'replied in the thread',
          ].sort(),
        );
        expect(
          checks.filter((c) => !c.ok),
          report,
        ).toEqual([]);
        expect(run.results, report).toEqual({ implement: 'success' });
        expect(job.branch).toBe(ISSUE_BRANCH);
        const pushed = await git(job.bare, ['ls-tree', '-r', '--name-only', ISSUE_BRANCH]);
        expect(pushed).toContain(`src/from-${clientName}.ts`);
        expect(await receipt(session), postLog(session)).toBe('success');
        // GitHub's records, read after the job's token expired
        const get = async (path: string) =>
          (await (
            await fetch(`${job.gh.url}/repos/octo/widgets${path}`, {
              headers: { authorization: `token ${run.observer}` },
            })
          ).json()) as unknown;
        const pulls = (await get('/pulls?state=all')) as Array<{
          number: number;
          body: string;
          head: { ref: string };
          base: { ref: string };
          user: { login: string };
        }>;
        expect(pulls.map((p) => `${p.head.ref} -> ${p.base.ref} by ${p.user.login}`)).toEqual([
          `${ISSUE_BRANCH} -> main by github-actions[bot]`,
        ]);
        const pull = pulls[0]!;
        expect(pull.body).toContain(`Made by perimeter \`implementer\` from branch \`${ISSUE_BRANCH}\``);
        const comments = (await get(`/issues/${ISSUE_NUMBER}/comments`)) as Array<{
          body: string;
          user: { login: string };
        }>;
        expect(comments.map((c) => c.user.login)).toEqual(['octo', 'github-actions[bot]']);
        expect(comments[1]!.body).toContain(`Opened a pull request adding src/from-${clientName}.ts.`);
        // the model reached through the egress proxy only, as in README's one-job cases
        const egress = egressOf(session);
        expect(
          egress.filter((e) => !/ reached 0 /.test(e)),
          postLog(session),
        ).toEqual([
          expect.stringMatching(new RegExp(`^${client.modelHost.replace(/\./g, '\\.')}:443 reached [1-9]`)),
        ]);
        // the receipt's summary links the pull request
        const summary = session.run.steps.find((s) => s.name === 'post')?.summary ?? '';
        expect(summary, postLog(session)).toMatch(
          new RegExp(
            `\\*\\*Pull request:\\*\\* \\[[a-z ]*pull request #${pull.number}\\]\\([^)]*/octo/widgets/pull/${pull.number}\\) from ${ISSUE_BRANCH} into main`,
          ),
        );
      } finally {
        await session?.model.stop();
        await session?.job.close();
      }
    });
  }

  it("issue-comment: a stranger's /implement starts nothing", { timeout: 600_000 }, async () => {
    counted("issue-comment: a stranger's /implement starts nothing");
    const client = CLIENTS.find((c) => c.name === 'claude-code')!;
    const session = await runWith(dir, client, issueCommentVariation(client, 'stranger'));
    try {
      // the job's `if:` reads the comment's author_association (NONE): no step runs, no branch is made
      expect(session.run.results).toEqual({ implement: 'skipped' });
      expect(session.run.steps).toEqual([]);
      expect(await git(session.job.bare, ['branch', '--list', ISSUE_BRANCH])).toBe('');
      expect(session.model.log).toEqual([]);
    } finally {
      await session.model.stop();
      await session.job.close();
    }
  });
});
