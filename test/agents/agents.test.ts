/**
 * The real agent clients against the action's dist/, each driven by a scripted local model: README's
 * snippets run word for word (the model route is the only addition), then post must post `success`.
 * Run with `npm run test:agents` (its own vitest config: `npm test` does not run it).
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  actionDir,
  createRunnerUser,
  downloadAction,
  FILES,
  freshRunner,
  git,
  Job,
  removeRunnerUser,
  runnerUserMissing,
  type RunnerOptions,
} from '@perimeter/test-rigs';
import { binDir, ensureClients, installDir } from './clients.js';
import { startModelServer, type ModelServer } from './model-server.js';
import { expand, installLine, readmeSteps } from './readme-jobs.js';
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
  modelEnv(model: ModelServer, runnerTemp: string): Record<string, string>;
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
    modelEnv: (model, runnerTemp) => {
      const home = join(runnerTemp, 'codex-home');
      mkdirSync(home, { recursive: true });
      // written before README's step appends the perimeter tables: top-level keys must come first in TOML
      writeFileSync(
        join(home, 'config.toml'),
        [
          'model = "gpt-5.1-codex"',
          'model_provider = "scripted"',
          '[model_providers.scripted]',
          'name = "scripted"',
          `base_url = "${model.url}/v1"`,
          'wire_api = "responses"',
          'env_key = "CODEX_API_KEY"',
          '',
        ].join('\n'),
      );
      return {};
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

/** README's one-job snippets set isolation: user; their jobs run as a runner-like user, as on GitHub's runners. */
let runnerUser: NonNullable<RunnerOptions['runAs']> | null = null;

afterAll(() => {
  if (runnerUser !== null) removeRunnerUser();
  const passed = outcomes.filter((o) => o.ok).length;
  console.log(`agents: ${passed} passed, ${outcomes.length - passed} failed`);
});

interface Session {
  checks: Check[];
  stepLogs: string[];
  model: ModelServer;
  job: Job;
}

interface Variation {
  /** variables the client step does not get, from its own env or main's exports (as under `sudo -u`) */
  dropEnv?: string[];
  /** a change to what main wrote, before the client step runs */
  afterMain?: (job: Job) => void;
  /** a change to README's command */
  editRun?: (run: string) => string;
  /** the snippet run, by its marker; default the client's name */
  snippet?: string;
  /** the model's script; default the gateway tools' Script */
  script?: (job: Job) => Scripted;
  /** the task the workflow gives */
  task?: string;
}

async function runReadmeJob(client: ClientCase, options: Variation = {}): Promise<Session> {
  const snippet = options.snippet ?? client.name;
  const steps = readmeSteps(snippet);
  const perimeterStep = steps.find((s) => s.uses?.includes('/perimeter@'));
  if (!perimeterStep) throw new Error(`README's ${snippet} snippet has no perimeter step`);
  const inputs = Object.fromEntries(Object.entries(perimeterStep.with ?? {}).map(([k, v]) => [k, String(v)]));
  const runAs = inputs.isolation === 'user' ? isolatedRunner() : null;
  const job = await Job.create({
    files: FILES,
    actionDir: runAs ? downloadAction(runAs, dir) : dir,
    inputs,
    ...(runAs && { runner: { runAs } }),
  });
  if (runAs) chmodSync(job.dir, 0o711);
  const script = options.script?.(job) ?? new Script(files(client.name), client.toolName);
  const model = await startModelServer(script);
  const home = mkdtempSync(join(tmpdir(), `agent-home-${client.name}-`));
  if (runAs) chownSync(home, runAs.uid, runAs.gid);
  const stepLogs: string[] = [];
  let path = process.env.PATH ?? '/usr/bin:/bin';
  for (const step of steps) {
    if (step.uses?.startsWith('actions/checkout@')) {
      expect(step.with?.['persist-credentials']).toBe(false);
      // checked out by root (git refuses a repository of another user), then given to the step's user
      if (runAs) execFileSync('chown', ['root:', job.runner.workspace]);
      await checkout(job);
      if (runAs) execFileSync('chown', ['-R', `${runAs.user}:`, job.runner.workspace]);
    } else if (step === perimeterStep) {
      const main = await job.main();
      expect(main.exitCode, main.log + main.stderr).toBe(0);
      // README's isolation: the client runs with the gateway another user's, without sudo
      if (runAs) expect(main.log).toContain(`sudo for ${runAs.user}: denied`);
      options.afterMain?.(job);
    } else if (step.run !== undefined && installLine(step.run)) {
      const install = installLine(step.run)!;
      if (install.global) path = `${binDir()}:${path}`;
      else symlinkSync(join(installDir(), 'node_modules'), join(job.runner.workspace, 'node_modules'));
    } else if (step.run !== undefined) {
      const x = {
        outputs: job.runner.main?.outputs ?? {},
        runnerTemp: job.runner.runnerTemp,
        secrets: SECRETS,
        inputs: { task: options.task ?? TASK },
      };
      const env: Record<string, string> = {
        ...client.modelEnv(model, job.runner.runnerTemp),
        ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v), x)])),
        PATH: path,
        HOME: home,
      };
      for (const name of options.dropEnv ?? []) {
        delete env[name];
        delete job.runner.jobEnv[name];
      }
      // what the suite wrote for the client (Codex's home) is the step's user's, as the runner's files are
      if (runAs) execFileSync('chown', ['-R', `${runAs.user}:`, job.runner.runnerTemp]);
      // README's promise: the agent step holds no GitHub token (the job's token stays in the gateway)
      expect(JSON.stringify({ ...job.runner.baseEnv(), ...env })).not.toContain(job.token);
      const edited = options.editRun ? options.editRun(step.run) : step.run;
      const workdir = step['working-directory'];
      // a step's working-directory, as the runner sets it
      const run = workdir === undefined ? edited : `cd '${expand(workdir, x)}'\n${edited}`;
      const result = await job.runner.runShell(expand(run, x), env, CLIENT_STEP_MS);
      stepLogs.push(
        `exit ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}\n${result.stdout}\n${result.stderr}`,
      );
    } else {
      throw new Error(`README's ${snippet} snippet has a step the suite cannot run: ${JSON.stringify(step)}`);
    }
  }
  return { checks: script.checks, stepLogs, model, job };
}

/** The runner-like user with sudo, as a GitHub-hosted runner hands it to a new job. */
function isolatedRunner(): NonNullable<RunnerOptions['runAs']> {
  const missing = runnerUserMissing();
  if (missing !== null)
    throw new Error(`README's snippets use isolation: user, which needs a runner-like user: ${missing}`);
  runnerUser ??= createRunnerUser();
  freshRunner();
  return runnerUser;
}

/** actions/checkout's result: the workspace as a git clone of the bound branch, no credential left. */
async function checkout(job: Job): Promise<void> {
  const workspace = job.runner.workspace;
  await git(workspace, ['init', '--quiet']);
  await git(workspace, ['fetch', '--quiet', job.bare, `refs/heads/${job.branch}`]);
  await git(workspace, ['checkout', '--quiet', 'FETCH_HEAD']);
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
        expect(
          stepLogs.every((l) => l.startsWith('exit 0')),
          report,
        ).toBe(true);
        const pushed = await git(job.bare, ['ls-tree', '-r', '--name-only', job.branch]);
        expect(pushed).toContain(`src/from-${client.name}.ts`);
        expect(pushed).not.toContain('docs/agent-notes.md');
        const post = await job.post();
        expect(post.exitCode, post.log).toBe(0);
        expect((await job.statuses(await job.head()))[0]?.state, post.summary).toBe('success');
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
        expect(
          stepLogs.every((l) => l.startsWith('exit 0')),
          report,
        ).toBe(true);
        const head = await job.head();
        expect(await git(job.bare, ['show', `${head}:${file.path}`])).toBe(file.content);
        expect((await git(job.bare, ['log', '-1', '--format=%s', head])).trim()).toBe(`Add ${file.path}`);
        const post = await job.post();
        expect(post.exitCode, post.log).toBe(0);
        expect((await job.statuses(head))[0]?.state, post.summary).toBe('success');
      } finally {
        await session?.model.stop();
        await session?.job.close();
      }
    });
  }
});

/** What the fixes are for: each variation undoes one, and the session must go wrong as it did before. */
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
      const session = await runReadmeJob(byName('codex'), { dropEnv: ['PERIMETER_TOKEN_IMPLEMENTER'] });
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
        dropEnv: ['PERIMETER_TOKEN_IMPLEMENTER'],
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
        editRun: (run) => run.replace(/\s*\\\n\s*--allowedTools mcp__implementer/, ''),
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
