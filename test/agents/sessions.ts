/**
 * One README workflow run whole with a real agent client and the scripted model: the clients as the suite
 * drives them (each one's tool names and model route, the one thing the test adds to README's workflow) and the
 * session a run leaves (the model's checks, the agent steps' logs, the workflow run).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { FILES, type Job } from '@perimeter/test-rigs';
import { startModelServer, type ModelServer } from './model-server.js';
import { MODEL_HOSTS } from './model-tls.js';
import { readmeWorkflow } from './readme-jobs.js';
import { Script, type Check, type Scripted, type ScriptFiles } from './script.js';
import {
  parseWorkflow,
  runWorkflow,
  type DefaultPermissions,
  type WorkflowEvent,
  type WorkflowRun,
} from './workflow-runner.js';

const PERIMETER = 'implementer';
export const TASK = 'Use only the implementer perimeter tools: read, then push the change.';
export const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-scripted-0000',
  OPENAI_API_KEY: 'sk-scripted-0000',
  COPILOT_TOKEN: 'github_pat_scripted_0000',
  /** a person's token, the review workflow's second identity (registered as REVIEWER in the stand-in) */
  PERIMETER_REVIEWER_TOKEN: 'ghp_ReviewerPersonalToken0123456789abcdef',
};
export const REVIEWER = 'octo-reviewer';
/** A client step gets this long before it is stopped (a guard against a hung client, not an assertion). */
const CLIENT_STEP_MS = 240_000;

export interface ClientCase {
  name: string;
  /** the host the client reaches its model at, through the egress proxy (its README workflow's preset) */
  modelHost: (typeof MODEL_HOSTS)[number];
  /**
   * hosts besides its model the client asks the egress proxy for, which its preset leaves out: refused, and
   * the client works without them (README says which)
   */
  asksBesides: string[];
  /** the client's name for a gateway tool among those offered */
  toolName(offered: string[], tool: string): string | undefined;
  /** the model route, the one thing the test adds to README's snippet */
  modelEnv(model: ModelServer): Record<string, string>;
  /** the model route in a file main wrote, where the client only finds it if README's steps take it */
  afterMain?: (job: Job, model: ModelServer) => void;
}

const exact = (name: string) => (offered: string[]) => offered.find((n) => n === name);

export const CLIENTS: ClientCase[] = [
  {
    name: 'claude-code',
    modelHost: 'api.anthropic.com',
    asksBesides: [],
    toolName: (offered, tool) => exact(`mcp__${PERIMETER}__${tool}`)(offered),
    modelEnv: (model) => claudeEnv(model),
  },
  {
    name: 'agent-sdk',
    modelHost: 'api.anthropic.com',
    asksBesides: [],
    toolName: (offered, tool) => exact(`mcp__${PERIMETER}__${tool}`)(offered),
    modelEnv: (model) => claudeEnv(model),
  },
  {
    name: 'codex',
    modelHost: 'api.openai.com',
    asksBesides: ['chatgpt.com', 'ab.chatgpt.com', 'github.com', 'api.github.com'],
    toolName: (offered, tool) =>
      offered.find(
        (n) =>
          n === `mcp__${PERIMETER}__${tool}` ||
          n === `mcp__${PERIMETER}__::${tool}` ||
          (n.endsWith(`::${tool}`) && n.includes(PERIMETER)),
      ),
    modelEnv: (model) => model.caEnv,
    // the model provider, put before the perimeter's table in the file main wrote: README's own step then
    // creates the agent's ~/.codex and appends it there (top-level keys must come first in TOML)
    afterMain: (job, model) => {
      const outputs = job.runner.main?.outputs ?? {};
      const provider = [
        'model = "gpt-5.1-codex"',
        'model_provider = "scripted"',
        '[model_providers.scripted]',
        'name = "scripted"',
        `base_url = "${model.urls.openai}/v1"`,
        'wire_api = "responses"',
        'env_key = "CODEX_API_KEY"',
        '',
      ].join('\n');
      // the implementer's file (README's codex workflows) and the one for every perimeter (codex-action's)
      for (const file of [outputs['codex-config-implementer'], outputs['codex-config']]) {
        if (file) writeFileSync(file, provider + readFileSync(file, 'utf8'));
      }
    },
  },
  {
    name: 'copilot',
    modelHost: 'api.githubcopilot.com',
    asksBesides: [],
    toolName: (offered, tool) => exact(`${PERIMETER}-${tool}`)(offered),
    modelEnv: (model) => ({
      ...model.caEnv,
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_TYPE: 'anthropic',
      COPILOT_PROVIDER_BASE_URL: model.urls.copilot,
      COPILOT_PROVIDER_API_KEY: 'sk-ant-scripted-0000',
      COPILOT_MODEL: 'claude-sonnet-4.5',
    }),
  },
];

function claudeEnv(model: ModelServer): Record<string, string> {
  return {
    ...model.caEnv,
    ANTHROPIC_BASE_URL: model.urls.anthropic,
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

export interface Session {
  /** the commit the receipt is read from (see Variation.receiptAt) */
  receiptAt?: (job: Job) => Promise<string>;
  checks: Check[];
  /** the logs of the agent's steps (every run step but the installs), in order */
  stepLogs: string[];
  model: ModelServer;
  job: Job;
  run: WorkflowRun;
}

export interface Variation {
  /** a change to the workflow's text (a line removed, a flag dropped) */
  edit?: (workflow: string) => string;
  /** the repository's default GITHUB_TOKEN permissions; default restricted */
  defaultPermissions?: DefaultPermissions;
  /** a change to what main wrote, before the client step runs */
  afterMain?: (job: Job) => void;
  /** the workflow run, by its marker; default the client's name */
  snippet?: string;
  /** the model's script; default the gateway tools' Script */
  script?: (job: Job) => Scripted;
  /** the task the workflow gives */
  task?: string;
  /** the workflow's text itself (one `perimeter init` wrote), instead of a page's marked block */
  workflow?: string;
  /** the action the run serves from the bundles, as the workflow names it (see WorkflowOptions.action) */
  action?: string;
  /** more files on the default branch (the checkout's), beside the sample repository's */
  files?: Record<string, string>;
  /** what happens on GitHub before the run (a pull request opened), after the repository is there */
  beforeJob?: (job: Job) => Promise<void>;
  /** the event that starts the run; default workflow_dispatch */
  event?: (job: Job) => Promise<WorkflowEvent>;
  /** the commit the receipt is posted on; default the bound branch's head */
  receiptAt?: (job: Job) => Promise<string>;
  /** the bound branch, when not the stand-in's default; made by the workflow's steps when `madeByWorkflow` */
  branch?: { name: string; madeByWorkflow: boolean };
}

/** README's workflow, whole, on the workflow runner: the model route is the only thing the test adds. */
export async function runReadmeJob(
  dir: string,
  client: ClientCase,
  options: Variation = {},
): Promise<Session> {
  const snippet = options.snippet ?? client.name;
  const text = options.workflow ?? readmeWorkflow(snippet);
  const workflow = parseWorkflow(options.edit ? options.edit(text) : text);
  let script: Scripted | undefined;
  let model: ModelServer | undefined;
  const run = await runWorkflow(workflow, {
    actionDir: dir,
    ...(options.action && { action: options.action }),
    files: { ...FILES, ...options.files },
    inputs: { task: options.task ?? TASK },
    secrets: SECRETS,
    ...(options.defaultPermissions && { defaultPermissions: options.defaultPermissions }),
    stepTimeoutMs: CLIENT_STEP_MS,
    agentEnv: () => (model ? client.modelEnv(model) : {}),
    afterMain: (job) => {
      if (model) client.afterMain?.(job, model);
      options.afterMain?.(job);
    },
    ...(options.event && { event: options.event }),
    ...(options.branch && { branch: options.branch }),
    beforeJob: async (job) => {
      job.gh.addToken(SECRETS.PERIMETER_REVIEWER_TOKEN, REVIEWER);
      await options.beforeJob?.(job);
      script = options.script?.(job) ?? new Script(files(client.name), client.toolName);
      model = await startModelServer(script);
    },
  }).catch(async (error: unknown) => {
    await model?.stop();
    throw error;
  });
  const stepLogs = run.steps.filter((s) => s.agent).map((s) => s.log);
  // with isolation: user, the agent steps ran after main took sudo from their user (when the job ran at all)
  const runAs = run.standIn.runner.runAs;
  if (runAs && run.steps.length > 0) {
    const logs = run.steps.filter((s) => !s.agent).map((s) => s.log);
    try {
      expect(logs.join('\n')).toContain(`sudo for ${runAs.user}: denied`);
    } catch (error) {
      // the caller gets no session to stop: the model's port (the presets' 443) must be free for the next run
      await model?.stop();
      await run.standIn.close();
      throw error;
    }
  }
  return {
    checks: script?.checks ?? [],
    stepLogs,
    model: model!,
    job: run.standIn,
    run,
    ...(options.receiptAt && { receiptAt: options.receiptAt }),
  };
}

export const postLog = (session: Session) => session.run.steps.find((s) => s.name === 'post')?.log ?? '';

/**
 * The hosts the agent asked its egress proxy for, from the receipt's summary (post's "The agent's egress"
 * table): `host:port reached N refused N`, in the summary's order.
 */
export function egressOf(session: Session): string[] {
  const summary = session.run.steps.find((s) => s.name === 'post')?.summary ?? '';
  const at = summary.indexOf("### The agent's egress");
  if (at < 0) return [];
  return [...summary.slice(at).matchAll(/^\| (\S+) \| (\d+) \| (\d+) \| (\d+) \|$/gm)].map(
    ([, host, port, reached, refused]) => `${host}:${port} reached ${reached} refused ${refused}`,
  );
}

/** The receipt on the bound branch's head, read after the job's token expired. */
export async function receipt(session: Session): Promise<string | undefined> {
  const { job, run } = session;
  const at = session.receiptAt ? await session.receiptAt(job) : await job.head();
  return (await job.statuses(at, run.observer)).find((s) => s.context === 'perimeter')?.state;
}
