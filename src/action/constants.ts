/** Every name the runner sees: inputs, outputs, state keys and the status context. */

export enum Inputs {
  GithubToken = 'github-token',
  Config = 'config',
  ConfigRef = 'config-ref',
  Perimeters = 'perimeters',
  Branch = 'branch',
  Port = 'port',
  FailOnViolation = 'fail-on-violation',
  DirectPushes = 'direct-pushes',
  RequireChanges = 'require-changes',
  StatusContext = 'status-context',
  EndpointSecrets = 'endpoint-secrets',
  WritesPerMinute = 'writes-per-minute',
  VerifyTimeout = 'verify-timeout',
  IgnoreRefs = 'ignore-refs',
  RecordName = 'record-name',
  RecordRetentionDays = 'record-retention-days',
  Writes = 'writes',
  ReceiptBy = 'receipt-by',
  ReceiptAs = 'receipt-as',
  ExportSecrets = 'export-secrets',
  Workspace = 'workspace',
  Isolation = 'isolation',
  AgentEgress = 'agent-egress',
}

/**
 * The inputs of the verify sub-action (verify/action.yml). It also reads, by the main action's names and
 * parsers (readJudgingRules), what decides the verdict: branch, config, config-ref, perimeters,
 * status-context, direct-pushes, require-changes and ignore-refs.
 */
export enum VerifyInputs {
  GithubToken = 'github-token',
  /** the agent job's name, as the run shows it: the verify job judges that job */
  AgentJob = 'agent-job',
  /** the login GitHub records for the agent job's token */
  AgentIdentity = 'agent-identity',
  /** the perimeters file (the pull-request gate reads it from the default branch) */
  Config = 'config',
  FailOnViolation = 'fail-on-violation',
  ReceiptAs = 'receipt-as',
  /** the same inputs as the main action's, read by readRecordSettings */
  RecordName = 'record-name',
  RecordRetentionDays = 'record-retention-days',
}

/** The main action's inputs the verify job reads too, by the same names and parsers (readJudgingRules). */
export const JUDGED_INPUTS = [
  Inputs.Branch,
  Inputs.Config,
  Inputs.ConfigRef,
  Inputs.Perimeters,
  Inputs.DirectPushes,
  Inputs.RequireChanges,
  Inputs.StatusContext,
  Inputs.IgnoreRefs,
] as const;

export enum Outputs {
  /** JSON object: perimeter name -> endpoint URL */
  Endpoints = 'endpoints',
  /**
   * path of a Claude Code `--mcp-config` file (mcpServers JSON, secrets included): with one perimeter exposed,
   * or every perimeter's with export-secrets; else empty (it would hand each agent the others' secrets)
   */
  McpConfig = 'mcp-config',
  /** path of a Codex config.toml snippet using bearer_token_env_var */
  CodexConfig = 'codex-config',
  /** JSON object: perimeter name -> name of the environment variable holding its bearer secret */
  TokenVariables = 'token-variables',
  /** the endpoint URL when exactly one perimeter is exposed, else empty */
  Url = 'url',
  /** the bearer environment variable name when exactly one perimeter is exposed, else empty */
  TokenVariable = 'token-variable',
  /** the name of the record artifact post uploads (perimeter/apply and audits read it) */
  Record = 'record',
  /**
   * with isolation: user, the command that runs an agent as the agent's own user (`<run-agent> claude …`,
   * src/cli/run-agent.ts); '' without isolation, so the same line runs the agent as the step's user
   */
  RunAgent = 'run-agent',
}

/**
 * Outputs of one perimeter, named `<prefix><perimeter>` (`secret-implementer`), so a workflow hands each agent
 * step only its own. A JavaScript action may set outputs its action.yml does not declare, and workflows can
 * use them: https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax#outputs-for-docker-container-and-javascript-actions
 */
export enum PerimeterOutputs {
  /** the endpoint's bearer secret (masked) */
  Secret = 'secret-',
  /** path of a Claude Code `--mcp-config` file with this perimeter's server only */
  McpConfig = 'mcp-config-',
  /** path of a Codex config.toml snippet with this perimeter's table only */
  CodexConfig = 'codex-config-',
  /** path of the perimeter's workspace (input `workspace`): what it may read, as files with a local git history */
  Workspace = 'workspace-',
  /** the command that pushes what changed in the workspace through the perimeter's endpoint; append a message */
  WorkspacePush = 'workspace-push-',
}

/** Keys passed from main to post (the runner hands them to post as STATE_<key>). */
export enum State {
  Branch = 'branch',
  Perimeters = 'perimeters',
  ConfigFile = 'configFile',
  /** perimeters.yml as main read it, in a file (a state variable is capped at 128 KiB by Linux) */
  ConfigPath = 'configPath',
  ConfigDigest = 'configDigest',
  /** what main ran with that decides the verdict: repository, API, direct-pushes, status context (JSON) */
  JobSettings = 'jobSettings',
  StartedAt = 'startedAt',
  StartHead = 'startHead',
  StartRefsPath = 'startRefsPath',
  StartRefsDigest = 'startRefsDigest',
  GatewayPid = 'gatewayPid',
  LedgerPath = 'ledgerPath',
  LedgerKey = 'ledgerKey',
  LogPath = 'logPath',
  /** where the gateway keeps the staged change set (writes: stage) */
  StagePath = 'stagePath',
  /** 'true' once main finished: endpoints were handed out */
  Ready = 'ready',
  /** why main failed, when it did */
  MainError = 'mainError',
  /** the ref main read perimeters.yml from (the default branch's name when config-ref was not given) */
  ConfigRef = 'configRef',
  /**
   * with isolation: user, how post reaches the gateway it can no longer signal or read (JSON: control port and
   * secret); '' without isolation
   */
  Isolation = 'isolation',
  /** a digest of every other key main saved and its value (src/action/agent-job/state.ts) */
  Seal = 'seal',
}

/** The default commit status context lives with the receipt (src/verify/receipts/receipt.ts). */
export { STATUS_CONTEXT } from '../verify/index.js';

export const READY_TIMEOUT_MS = 10_000;
/** How long before the start snapshot (on GitHub's clock) the job's window opens: src/verify/runs/agent-job.ts. */
export { START_MARGIN_MS } from '../verify/index.js';
export const STOP_GRACE_MS = 5_000;
