/**
 * The real agent clients against the action's dist/, each driven by a scripted local model: README's
 * snippets run word for word (the model route is the only addition), then post must post `success`.
 * Run with `npm run test:agents` (its own vitest config: `npm test` does not run it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { actionDir, FILES, git, type Job } from '@perimeter/test-rigs';
import { ensureClients } from './clients.js';
import { startModelServer, type ModelServer } from './model-server.js';
import { reachTable, readmeWorkflow } from './readme-jobs.js';
import { parseWorkflow, runWorkflow, type Reach, type WorkflowRun } from './workflow-runner.js';
import { Script, WorkspaceScript, type Check, type Scripted, type ScriptFiles } from './script.js';

const PERIMETER = 'implementer';
const TASK = 'Use only the implementer perimeter tools: read, then push the change.';
const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-scripted-0000',
  OPENAI_API_KEY: 'sk-scripted-0000',
  COPILOT_TOKEN: 'github_pat_scripted_0000',
};
/** A client step gets this long before it is stopped (a guard against a hung client, not an assertion). */
const CLIENT_STEP_MS = 240_000;

interface ClientCase {
  name: string;
  /** the client's name for a gateway tool among those offered */
  toolName(offered: string[], tool: string): string | undefined;
  /** the model route, the one thing the test adds to README's snippet */
  modelEnv(model: ModelServer): Record<string, string>;
  /** the model route in a file main wrote, where the client only finds it if README's steps take it */
  afterMain?: (job: Job, model: ModelServer) => void;
}

const exact = (name: string) => (offered: string[]) => offered.find((n) => n === name);

const CLIENTS: ClientCase[] = [
  {
    name: 'claude-code',
    toolName: (offered, tool) => exact(`mcp__${PERIMETER}__${tool}`)(offered),
    modelEnv: (model) => claudeEnv(model),
  },
  {
    name: 'agent-sdk',
    toolName: (offered, tool) => exact(`mcp__${PERIMETER}__${tool}`)(offered),
    modelEnv: (model) => claudeEnv(model),
  },
  {
    name: 'codex',
    toolName: (offered, tool) =>
      offered.find(
        (n) =>
          n === `mcp__${PERIMETER}__${tool}` ||
          n === `mcp__${PERIMETER}__::${tool}` ||
          (n.endsWith(`::${tool}`) && n.includes(PERIMETER)),
      ),
    modelEnv: () => ({}),
    // the model provider, put before the perimeter's table in the file main wrote: README's own step then
    // creates CODEX_HOME and appends it there (top-level keys must come first in TOML)
    afterMain: (job, model) => {
      const file = job.runner.main?.outputs['codex-config-implementer'];
      if (!file) return;
      const provider = [
        'model = "gpt-5.1-codex"',
        'model_provider = "scripted"',
        '[model_providers.scripted]',
        'name = "scripted"',
        `base_url = "${model.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "CODEX_API_KEY"',
        '',
      ].join('\n');
      writeFileSync(file, provider + readFileSync(file, 'utf8'));
    },
  },
  {
    name: 'copilot',
    toolName: (offered, tool) => exact(`${PERIMETER}-${tool}`)(offered),
    modelEnv: (model) => ({
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_TYPE: 'anthropic',
      COPILOT_PROVIDER_BASE_URL: model.url,
      COPILOT_PROVIDER_API_KEY: 'sk-ant-scripted-0000',
      COPILOT_MODEL: 'claude-sonnet-4.5',
    }),
  },
];

function claudeEnv(model: ModelServer): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: model.url,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

function files(client: string): ScriptFiles {
  return {
    readable: { path: 'src/count.ts', expect: 'export const count' },
    hidden: 'docs/roadmap.md',
    missing: 'docs/nothing-here.md',
    outside: { path: 'docs/agent-notes.md', content: `notes from ${client}\n` },
    inside: { path: `src/from-${client}.ts`, content: `export const from = ${JSON.stringify(client)};\n` },
  };
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
  const passed = outcomes.filter((o) => o.ok).length;
  console.log(`agents: ${passed} passed, ${outcomes.length - passed} failed`);
});

interface Session {
  checks: Check[];
  /** the logs of the agent's steps (every run step but the installs), in order */
  stepLogs: string[];
  model: ModelServer;
  job: Job;
  run: WorkflowRun;
}

interface Variation {
  /** a change to the workflow's text (a line removed, a flag dropped) */
  edit?: (workflow: string) => string;
  /** a change to what main wrote, before the client step runs */
  afterMain?: (job: Job) => void;
  /** the workflow run, by its marker; default the client's name */
  snippet?: string;
  /** the model's script; default the gateway tools' Script */
  script?: (job: Job) => Scripted;
  /** the task the workflow gives */
  task?: string;
  /** more files on the default branch (the checkout's), beside the sample repository's */
  files?: Record<string, string>;
}

/** README's workflow, whole, on the workflow runner: the model route is the only thing the test adds. */
async function runReadmeJob(client: ClientCase, options: Variation = {}): Promise<Session> {
  const snippet = options.snippet ?? client.name;
  const text = readmeWorkflow(snippet);
  const workflow = parseWorkflow(options.edit ? options.edit(text) : text);
  let script: Scripted | undefined;
  let model: ModelServer | undefined;
  const run = await runWorkflow(workflow, {
    actionDir: dir,
    files: { ...FILES, ...options.files },
    inputs: { task: options.task ?? TASK },
    secrets: SECRETS,
    stepTimeoutMs: CLIENT_STEP_MS,
    agentEnv: () => (model ? client.modelEnv(model) : {}),
    afterMain: (job) => {
      if (model) client.afterMain?.(job, model);
      options.afterMain?.(job);
    },
    beforeJob: async (job) => {
      script = options.script?.(job) ?? new Script(files(client.name), client.toolName);
      model = await startModelServer(script);
    },
  });
  const stepLogs = run.steps.filter((s) => s.agent).map((s) => s.log);
  if (!options.edit && !options.afterMain && !options.files) reached.set(snippet, run.reach);
  if (process.env.DEBUG_RUN) console.log(JSON.stringify(run.steps, null, 1).slice(0, 6000));
  return { checks: script?.checks ?? [], stepLogs, model: model!, job: run.standIn, run };
}

const postLog = (session: Session) => session.run.steps.find((s) => s.name === 'post')?.log ?? '';

/** The receipt on the bound branch's head, read after the job's token expired. */
async function receipt(session: Session): Promise<string | undefined> {
  const { job, run } = session;
  return (await job.statuses(await job.head(), run.observer))[0]?.state;
}

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
        expect(found).toEqual([join(session.job.runner.workspace, '.git', 'config')]);
      } finally {
        await session.model.stop();
        await session.job.close();
      }
    },
  );
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
        const report = run.steps
          .map((s) => `${s.job}/${s.name}: ${s.outcome}\n${s.log.slice(-3000)}`)
          .join('\n');
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
