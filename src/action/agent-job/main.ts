import * as core from '@actions/core';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  type Receipts,
  type RepoCoordinates,
  type RepoReads,
  type Upstream,
  UpstreamError,
} from '../../github/index.js';
import type { Perimeter } from '../../policy/index.js';
import { DEFAULT_CONFIG_FILE } from '../../policy/index.js';
import { snapshotRefs, type RefSnapshot } from '../../verify/index.js';
import {
  shellWord,
  tokenVariables,
  variableName,
  writeClientConfigs,
  type ClientConfigFiles,
  type ClientConfigs,
  type Endpoint,
} from '../../clients/client-config.js';
import { ActionError, readRepositoryConfig } from '../config-loader.js';
import { establishPerimeters } from '../establish.js';
import { Inputs, Outputs, PerimeterOutputs, READY_TIMEOUT_MS, START_MARGIN_MS, State } from '../constants.js';
import { spawnGateway, type PendingGateway } from './gateway-process.js';
import { triggerThread } from './trigger-thread.js';
import { handOutWorkspaces } from './workspace.js';
import {
  adoptFiles,
  checkIsolationSupport,
  GATEWAY_USER,
  giveToAgent,
  openAgentPorts,
  gatewayLauncher,
  killGateway,
  lockDown,
  prepareGatewayHome,
  readGatewayLog,
  type GatewayHome,
} from './isolation.js';
import { writeWorkspaceState } from '../../clients/workspace-state.js';
import { AGENT_USER, trustedBinary } from './agent-user.js';
import { makeScrubber } from '../../safety/secret-forms.js';
import { createSecretFilter } from '../../safety/index.js';
import { readSettings, type Settings } from '../inputs.js';
import { runStep } from '../step.js';
import {
  actionsState,
  CONFIG_FILE_KEYS,
  jobSettingsOf,
  saveStateFile,
  sealingState,
  START_REFS_KEYS,
  type StateStore,
} from './state.js';

/** dist/main/index.js -> the action's directory (action.yml, dist/) */
function actionDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** dist/main/index.js -> dist/gateway/index.js */
function defaultGatewayScript(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'gateway', 'index.js');
}

/**
 * The main step: read the trusted config, snapshot the refs, start the gateway, hand out endpoints.
 * Everything post needs is saved as it becomes true, so post can verify whatever main got to.
 */
export async function runMain(): Promise<void> {
  // sealed: post tells what main saved from STATE_ variables a later step exported
  const store = sealingState(actionsState);
  // post puts the reason in the error receipt (a refusal such as an untrusted trigger says why there)
  const refuse = (message: string): void => {
    store.save(State.MainError, message);
    core.setFailed(message);
  };
  // grows with the secrets main makes (endpoint secrets, the ledger key), so a late error is scrubbed of them
  const secrets: string[] = [];
  await runStep({
    read: () => readSettings(),
    secrets: (settings) => Object.values(settings.endpointSecrets),
    badInput: refuse,
    done: 'started',
    run: ({ settings, upstream }) => {
      secrets.push(settings.token, ...Object.values(settings.endpointSecrets));
      return start(settings, upstream, store, defaultGatewayScript(), secrets);
    },
    failed: async (_context, _error, message) => refuse(makeScrubber(secrets)(message)),
  });
}

async function start(
  settings: Settings,
  upstream: Upstream,
  store: StateStore,
  gatewayScript: string,
  secrets: string[],
): Promise<void> {
  // The gateway loads its code while main reads GitHub; it waits on stdin for what main learns. With isolation
  // its launcher waits instead, and the gateway starts once main hands the configuration over.
  const workDir = realpathSync(mkdtempSync(join(settings.tempDir, 'perimeter-')));
  let home: GatewayHome | null = null;
  if (settings.isolation === 'user') {
    const warning = checkIsolationSupport();
    if (warning !== null) core.warning(warning, { title: 'Perimeter isolation' });
    home = prepareGatewayHome(process.execPath, gatewayScript);
  }
  const logPath = home ? home.logPath : join(workDir, 'gateway.log');
  const isolated = home;
  const gateway = spawnGateway({
    script: gatewayScript,
    logPath,
    ...(isolated && {
      launcher: {
        ...gatewayLauncher(isolated),
        readLog: () => readGatewayLog(isolated),
        killPid: killGateway,
      },
    }),
  });
  try {
    await prepareAndServe(settings, upstream, store, gateway, { workDir, logPath, home }, secrets);
  } catch (error) {
    // nothing was served: the child and its directory go, as if never started
    gateway.kill();
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
}

async function prepareAndServe(
  settings: Settings,
  upstream: Upstream,
  store: StateStore,
  gateway: PendingGateway,
  { workDir, logPath, home }: { workDir: string; logPath: string; home: GatewayHome | null },
  secrets: string[],
): Promise<void> {
  // the gateway's own files: with isolation in its user's directory, out of the runner's user's reach
  const gatewayDir = home ? home.dir : workDir;
  // Two chains of reads at once: the config, and GitHub's clock then the refs (the clock first, so the window
  // opens before the snapshot). Errors are reported in that order whichever fails first.
  const [configRead, startRead] = await Promise.allSettled([
    readTrustedConfig(upstream, settings),
    readStart(upstream),
  ]);
  if (configRead.status === 'rejected') throw configRead.reason;
  if (startRead.status === 'rejected') throw startRead.reason;
  const { defaultBranch, configRef, configText } = configRead.value;
  const { startedAt, snapshot } = startRead.value;
  const { perimeters, trust, warning } = await establishPerimeters(upstream, {
    file: settings.configFile,
    text: configText,
    names: settings.perimeters,
    configRef: settings.configRef,
    branch: settings.branch,
    defaultBranch,
    eventName: settings.eventName,
    event: settings.event,
    heads: snapshot,
  });
  if (trust !== null) core.notice(trust, { title: 'Perimeter: who triggered this run' });
  if (warning !== null) core.warning(warning);
  const names = perimeters.map((p) => p.name);
  const variables = tokenVariables(names);
  const unexposed = Object.keys(settings.endpointSecrets).filter((name) => !names.includes(name));
  if (unexposed.length > 0) {
    throw new ActionError(
      `${Inputs.EndpointSecrets}: ${unexposed.map((n) => JSON.stringify(n)).join(', ')} not exposed by this ` +
        `step (exposed: ${names.join(', ')})`,
    );
  }
  const startHead = snapshot[`refs/heads/${settings.branch}`];
  if (startHead === undefined) {
    throw new ActionError(
      `branch "${settings.branch}" does not exist in ${settings.owner}/${settings.repo}; ` +
        `create it before this step or set the ${Inputs.Branch} input`,
    );
  }
  core.info(`perimeters.yml from ${configRef}: exposing ${names.join(', ')} on branch ${settings.branch}`);

  // With a verify job, the receipt and every status are its own: main posts none, so the agent job needs no
  // statuses: write, and any status on the receipt's context during the job is forged. With writes: stage the
  // apply job's receipt is the one, and the job's token needs no write permission at all.
  // Posted while the gateway starts (a round trip off main's time to ready), and awaited before any
  // endpoint is handed out: a token that cannot post statuses still fails main with nothing served.
  const pending = settings.receiptBy === 'post' ? markPending(upstream, startHead, settings) : null;
  pending?.catch(() => undefined);

  store.save(State.Branch, settings.branch);
  store.save(State.Perimeters, JSON.stringify(names));
  store.save(State.ConfigFile, settings.configFile);
  store.save(State.ConfigRef, configRef);
  const stateFiles = [join(workDir, DEFAULT_CONFIG_FILE), join(workDir, 'start-refs.json')] as const;
  saveStateFile(store, CONFIG_FILE_KEYS, stateFiles[0], configText);
  store.save(State.JobSettings, JSON.stringify(jobSettingsOf(settings)));
  store.save(State.StartedAt, startedAt);
  store.save(State.StartHead, startHead);
  saveStateFile(store, START_REFS_KEYS, stateFiles[1], JSON.stringify(snapshot));
  if (home) {
    const moved = adoptFiles(home, [...stateFiles]);
    store.save(State.ConfigPath, moved[0] as string);
    store.save(State.StartRefsPath, moved[1] as string);
  }

  const endpointSecrets: Record<string, string> = {};
  for (const name of names) {
    endpointSecrets[name] = settings.endpointSecrets[name] ?? randomBytes(32).toString('base64url');
  }
  const ledgerKey = randomBytes(32).toString('base64url');
  const controlSecret = home ? randomBytes(32).toString('base64url') : null;
  for (const value of [
    ...Object.values(endpointSecrets),
    ledgerKey,
    ...(controlSecret ? [controlSecret] : []),
  ]) {
    core.setSecret(value);
    secrets.push(value);
  }
  const ledgerPath = join(gatewayDir, 'ledger.jsonl');
  store.save(State.LedgerPath, ledgerPath);
  store.save(State.LedgerKey, ledgerKey);
  store.save(State.LogPath, logPath);
  const stagePath = settings.writes === 'stage' ? join(gatewayDir, 'staged.json') : undefined;
  if (stagePath) store.save(State.StagePath, stagePath);

  const { pid, port, controlPort, egressPort } = await gateway.configure(
    {
      token: settings.token,
      apiUrl: settings.apiUrl,
      owner: settings.owner,
      repo: settings.repo,
      branch: settings.branch,
      defaultBranch,
      configText,
      configFile: settings.configFile,
      configRef,
      perimeters: names,
      secrets: endpointSecrets,
      port: settings.port,
      writesPerMinute: settings.writesPerMinute,
      ledgerPath,
      ledgerKey,
      readyFile: join(gatewayDir, 'ready.json'),
      ...(stagePath ? { stagePath } : {}),
      conversation: {
        thread: triggerThread(settings.eventName, settings.event),
        receiptUrl: settings.runUrl ?? null,
        statusContext: settings.statusContext,
        record: settings.record.name,
      },
      ...(controlSecret ? { controlSecret } : {}),
      ...(home ? { egress: { allow: settings.agentEgress } } : {}),
    },
    { timeoutMs: READY_TIMEOUT_MS, secrets },
  );
  // (a refused status ends the gateway in start() before post could be told of it)
  await pending;
  if (home) {
    // the agent's user reaches these two ports and nothing else: without the proxy it would reach no host at all
    if (egressPort === undefined)
      throw new ActionError('isolation: the gateway started no egress proxy for the agent');
    openAgentPorts(home.agent, { gateway: port, proxy: egressPort });
  }
  store.save(State.GatewayPid, String(pid));
  if (controlSecret) store.save(State.Isolation, JSON.stringify({ controlPort, controlSecret }));

  // a failure from here on is caught by start(), which ends the gateway
  const endpoints: Endpoint[] = names.map((name) => ({
    name,
    url: `http://127.0.0.1:${port}/mcp/${encodeURIComponent(name)}`,
    secret: endpointSecrets[name] as string,
  }));
  const written = writeClientConfigs(workDir, endpoints, variables);
  // with isolation the agent runs as its own user: its client configs are that user's files
  const files = home ? clientConfigsForAgent(written, home) : written;
  handOut(endpoints, files, settings.exportSecrets, variables);
  // '' without isolation: `${{ steps.perimeter.outputs.run-agent }} claude …` then runs claude as it is
  core.setOutput(Outputs.RunAgent, home ? home.agent.runAgent : '');
  const only = endpoints.length === 1 ? endpoints[0] : undefined;
  core.setOutput(
    Outputs.Endpoints,
    JSON.stringify(Object.fromEntries(endpoints.map((e) => [e.name, e.url]))),
  );
  core.setOutput(Outputs.CodexConfig, files.codexConfig);
  core.setOutput(Outputs.TokenVariables, JSON.stringify(variables));
  core.setOutput(Outputs.Url, only?.url ?? '');
  core.setOutput(Outputs.TokenVariable, only ? variables[only.name] : '');
  core.setOutput(Outputs.Record, settings.record.name);
  if (settings.workspace !== null)
    await handOutAll(settings, upstream, { perimeters, startHead, configRef, endpoints, workDir, home });
  // the last use of sudo: after it no later step has any, nor the Docker socket, nor the action's directory
  if (home) await reportLockDown(lockDown(actionDir(), home.agent), pid, home, settings.agentEgress);
  store.save(State.Ready, 'true');
  for (const e of endpoints) core.info(`${e.name}: ${e.url}`);
  core.info(
    `gateway ready (pid ${pid}) ${Math.round(performance.now())} ms after the step started; ` +
      `MCP client configs in ${workDir}`,
  );
}

/**
 * The client configs as the agent's user's files, in its directory: the runner's user's RUNNER_TEMP may be in a
 * home the agent's user cannot enter, and the agent's files are out of the runner's user's way.
 */
function clientConfigsForAgent(files: ClientConfigs, home: GatewayHome): ClientConfigs {
  const all = [files.mcpConfig, files.codexConfig];
  for (const own of Object.values(files.perimeters)) all.push(own.mcpConfig, own.codexConfig);
  const given = giveToAgent(home.agent.configDir, all);
  const moved = new Map(all.map((path, i) => [path, given[i] as string]));
  const to = (path: string): string => moved.get(path) as string;
  return {
    mcpConfig: to(files.mcpConfig),
    codexConfig: to(files.codexConfig),
    perimeters: Object.fromEntries(
      Object.entries(files.perimeters).map(([name, own]) => [
        name,
        { mcpConfig: to(own.mcpConfig), codexConfig: to(own.codexConfig) },
      ]),
    ),
  };
}

/** What isolation took away, in the log and the job summary, where the owner reads what the agent can do. */
async function reportLockDown(
  removed: string[],
  pid: number,
  home: GatewayHome,
  egress: string[],
): Promise<void> {
  const lines = [
    `the gateway runs as user ${GATEWAY_USER} (pid ${pid})`,
    `agents run as user ${AGENT_USER} through ${home.agent.runAgent} (the run-agent output)`,
    home.agent.egress,
    `the agent's egress proxy lets through: ${egress.length > 0 ? egress.join(', ') : 'nothing (input agent-egress)'}`,
    ...removed,
  ];
  core.info(`Perimeter isolation:\n${lines.map((line) => `  ${line}`).join('\n')}`);
  await core.summary
    .addHeading('Perimeter isolation', 3)
    .addList(lines)
    .addRaw(
      'Later steps of this job have no sudo, no Docker, and cannot reach the gateway or its files.',
      true,
    )
    .write();
}

async function readTrustedConfig(
  upstream: RepoCoordinates & RepoReads,
  settings: Settings,
): Promise<{ defaultBranch: string; configRef: string; configText: string }> {
  // The default branch always (a perimeter may be bound to it only when its branches name it), with the
  // config beside it in the same request.
  const read = await readRepositoryConfig(upstream, settings.configFile, settings.configRef);
  return { defaultBranch: read.defaultBranch, configRef: read.ref, configText: read.text };
}

/**
 * On GitHub's clock, like the activity list the verification reads back to it; the Date header counts whole
 * seconds, and the margin keeps a push in the same second inside the window.
 */
async function readStart(upstream: RepoReads): Promise<{ startedAt: string; snapshot: RefSnapshot }> {
  const startedAt = new Date(Date.parse(await upstream.serverTime()) - START_MARGIN_MS).toISOString();
  return { startedAt, snapshot: await snapshotRefs(upstream) };
}

/**
 * Each perimeter's secret and client configs as outputs of its own, so a workflow gives each agent step only
 * its own perimeter's (`${{ steps.perimeter.outputs.secret-implementer }}`); nothing goes to the environment
 * of later steps unless `export-secrets` asks for it. The secrets are masked already.
 */
function handOut(
  endpoints: Endpoint[],
  files: ClientConfigs,
  exportSecrets: boolean,
  variables: Record<string, string>,
): void {
  for (const e of endpoints) {
    const own = files.perimeters[e.name] as ClientConfigFiles;
    core.setOutput(`${PerimeterOutputs.Secret}${e.name}`, e.secret);
    core.setOutput(`${PerimeterOutputs.McpConfig}${e.name}`, own.mcpConfig);
    core.setOutput(`${PerimeterOutputs.CodexConfig}${e.name}`, own.codexConfig);
    if (exportSecrets) {
      core.exportVariable(variables[e.name] as string, e.secret);
      core.exportVariable(variableName('URL', e.name), e.url);
    }
  }
  // every perimeter's secrets in one file: handed out only where that gives no step another's secret
  const only = endpoints.length === 1 ? endpoints[0] : undefined;
  const all = only ? (files.perimeters[only.name] as ClientConfigFiles).mcpConfig : files.mcpConfig;
  core.setOutput(Outputs.McpConfig, only || exportSecrets ? all : '');
  if (!only && !exportSecrets) {
    core.info(
      `${Outputs.McpConfig} is empty with several perimeters: give each agent step its own ` +
        `${PerimeterOutputs.McpConfig}<perimeter> (or set ${Inputs.ExportSecrets}: true)`,
    );
  }
}

/**
 * Each perimeter's workspace, its state file beside the client configs (outside the workspace: it holds the
 * endpoint's secret), and the outputs that name them.
 */
async function handOutAll(
  settings: Settings,
  upstream: Upstream,
  context: {
    perimeters: Perimeter[];
    startHead: string;
    configRef: string;
    endpoints: Endpoint[];
    workDir: string;
    home: GatewayHome | null;
  },
): Promise<void> {
  const started = performance.now();
  const { workspaces, figures } = await handOutWorkspaces({
    upstream,
    branch: settings.branch,
    head: context.startHead,
    configRef: context.configRef,
    perimeters: context.perimeters,
    folder: settings.workspace as string,
    // with isolation, the git main checked is root's (never one on the step's PATH)
    ...(context.home ? { git: trustedBinary('git') } : {}),
    // the gateway's filter, with the same values it hides wherever they appear (src/gateway/assemble.ts)
    filter: createSecretFilter({ extraSecrets: [settings.token, ...context.endpoints.map((e) => e.secret)] }),
  });
  const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'index.js');
  const { home } = context;
  // with isolation each workspace becomes the agent's user's, in its directory
  if (home) {
    const moved = giveToAgent(
      home.agent.workspaces,
      workspaces.map((w) => w.dir),
    );
    workspaces.forEach((w, i) => (w.dir = moved[i] as string));
  }
  for (const workspace of workspaces) {
    const endpoint = context.endpoints.find((e) => e.name === workspace.perimeter) as Endpoint;
    const statePath = join(context.workDir, `workspace-${workspace.perimeter}.json`);
    writeWorkspaceState(statePath, {
      version: 1,
      perimeter: workspace.perimeter,
      url: endpoint.url,
      secret: endpoint.secret,
      dir: workspace.dir,
      branch: settings.branch,
      head: context.startHead,
      files: workspace.files,
    });
    core.setOutput(`${PerimeterOutputs.Workspace}${workspace.perimeter}`, workspace.dir);
    core.setOutput(
      `${PerimeterOutputs.WorkspacePush}${workspace.perimeter}`,
      [process.execPath, cli, 'workspace', 'push', '--state', statePath, '--message']
        .map(shellWord)
        .join(' '),
    );
    core.exportVariable(variableName('WORKSPACE', workspace.perimeter), workspace.dir);
    const count = Object.keys(workspace.files).length;
    core.info(`${workspace.perimeter}: workspace ${workspace.dir} with ${count} files`);
    for (const { path, reason } of workspace.leftOut)
      core.info(`  left out ${path || 'every file'}: ${reason}`);
  }
  core.info(
    `workspaces ready in ${Math.round(performance.now() - started)} ms: ${figures.blobs} blobs, ` +
      `${figures.byGit} over git, ${figures.byGraphql} by GraphQL, ${figures.byRest} by REST (one request each)`,
  );
}

/** A pending status until post's receipt replaces it; also proves early that the token may post statuses. */
async function markPending(upstream: Receipts, sha: string, settings: Settings): Promise<void> {
  try {
    await upstream.createStatus(sha, {
      state: 'pending',
      context: settings.statusContext,
      description: 'Agents at work; the post step verifies what was pushed.',
    });
  } catch (error) {
    if (error instanceof UpstreamError && (error.code === 'forbidden' || error.code === 'not_found')) {
      throw new ActionError(
        `${Inputs.GithubToken} cannot post commit statuses (${error.message}); ` +
          'give the job `permissions: { contents: write, statuses: write }`',
      );
    }
    throw error;
  }
}
