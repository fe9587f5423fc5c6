import {
  createOctokitUpstream,
  type Receipts,
  type RepoReads,
  type RepoWrites,
  type RunRecords,
} from '../../github/index.js';
import {
  compilePerimeter,
  configRefNeedsRulesets,
  judgeConfigRef,
  parseConfig,
  type Perimeter,
} from '../../policy/index.js';
import { MIN_SCRUBBED_LENGTH, makeScrubber } from '../../safety/secret-forms.js';
import {
  agentJobWindow,
  compareReceipts,
  compareSettings,
  ledgerFactsOf,
  ownCheckRunIds,
  ownReceiptIds,
  parseReceiptJson,
  receiptJson,
  START_MARGIN_MS,
  verifyJob,
  type Disagreement,
  type ExpectedSettings,
  type LedgerFacts,
  type ReceiptJson,
  type ReceiptWindow,
  visible,
} from '../../verify/index.js';
import { parseCommandArgs, renderHelp, type Flags } from '../args.js';
import { trustedConfig } from './audit-config.js';
import { EXIT_CHANGES, EXIT_OK, UsageError, type CliIo } from '../io.js';
import { readRecord, type RecordFiles } from './record-files.js';

export const AUDIT_USAGE =
  'perimeter audit [--repo OWNER/NAME] [--api-url URL] [--json] [--job NAME] [--config FILE] [--config-ref REF] ' +
  '[--perimeters LIST|all] [--direct-pushes check|deny] [--require-changes true|false] [--ignore-refs LIST] RECORD';

export const AUDIT_FLAGS = {
  repo: {
    type: 'string',
    value: 'OWNER/NAME',
    help: 'the repository, when it is not the one the record names',
  },
  'api-url': {
    type: 'string',
    value: 'URL',
    help: "GitHub's API (default GITHUB_API_URL, else https://api.github.com)",
  },
  json: {
    type: 'boolean',
    default: false,
    help: 'print the ledger, both verdicts and the disagreements as JSON',
  },
  job: {
    type: 'string',
    value: 'NAME',
    help: "the agent job's name as the run shows it: the window comes from GitHub's jobs API, and the record's own is named when it is not inside it",
  },
  config: {
    type: 'string',
    value: 'FILE',
    help: "the workflow's `config` input; the record's own is named when it differs",
  },
  'config-ref': {
    type: 'string',
    value: 'REF',
    help: "the workflow's `config-ref` input; the record's own is named when it differs",
  },
  perimeters: {
    type: 'string',
    value: 'LIST|all',
    help: "the workflow's `perimeters` input (all: any of the file's perimeters)",
  },
  'direct-pushes': {
    type: 'string',
    value: 'check|deny',
    help: "the workflow's `direct-pushes` input",
  },
  'require-changes': {
    type: 'string',
    value: 'true|false',
    help: "the workflow's `require-changes` input",
  },
  'ignore-refs': {
    type: 'string',
    value: 'LIST',
    help: "the workflow's `ignore-refs` input (empty: none)",
  },
} satisfies Flags;

export const AUDIT_HELP = renderHelp({
  usage: AUDIT_USAGE,
  about:
    "Re-checks a run's record against GitHub: recomputes the verdict from GitHub's records with the trusted perimeters file, and names every place where the record or its receipt disagrees. Pass the workflow's values (the flags below) so the record's own account of its settings is checked, not believed. Token from GITHUB_TOKEN, with read access to contents and actions.",
  args: { RECORD: "the run's record artifact: the zip, or the directory `gh run download` makes" },
  flags: AUDIT_FLAGS,
  exits:
    '0 they agree; 3 they disagree (each field named); 1 unreadable record, unknown receipt version or GitHub error; 2 bad usage.',
});

/**
 * `perimeter audit RECORD`: re-checks a run's record after the run. The ledger's chain against its key, then
 * the verdict recomputed from GitHub for the window the receipt gives (its refs at both ends checked against
 * GitHub's activity list, the perimeters from the file GitHub has at the config ref the record names, never
 * the record's own blob), then every place where the receipt and GitHub disagree, and where the record's
 * settings differ from the workflow's values the owner passes (`--perimeters` and the rest). Token from GITHUB_TOKEN (read access to contents and actions). Exit 0 when they agree,
 * 3 when they disagree, 1 when the audit could not be done.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, AUDIT_FLAGS, true);
  const expected = expectedSettings(values);
  const job = typeof values.job === 'string' ? values.job.trim() : null;
  if (job === '') throw new UsageError('--job: expected the agent job\'s name, got ""');
  if (positionals.length !== 1) throw new UsageError(`expected one record, got ${positionals.length}`);
  const target = positionals[0]!;
  const token = process.env.GITHUB_TOKEN ?? process.env.GH_TOKEN ?? '';
  if (!token) throw new UsageError('no token: set GITHUB_TOKEN (read access to the repository is enough)');
  if (token.length < MIN_SCRUBBED_LENGTH)
    throw new UsageError(`the token has ${token.length} characters, shorter than any GitHub token`);

  const record = await readRecord(target, io.cwd);
  if (record.receipt === null && record.handover !== null)
    throw new Error(
      `${record.source} is the agent job's hand-over to the verify job (receipt-by: verify-job): it holds no verdict to audit. Audit the verify job's record (perimeter-verify-<run attempt> by default)`,
    );
  if (record.receipt === null) throw new Error(`${record.source} holds no receipt.json`);
  const receipt = parseReceiptJson(record.receipt, `${record.source}: receipt.json`);
  const repository = values.repo ?? receipt.repository;
  const [owner, repo] = repository.split('/');
  if (!owner || !repo) throw new UsageError(`--repo: expected OWNER/NAME, got ${JSON.stringify(repository)}`);
  const upstream = createOctokitUpstream({
    token,
    owner,
    repo,
    baseUrl: values['api-url'] ?? process.env.GITHUB_API_URL ?? 'https://api.github.com',
  });
  const scrub = makeScrubber([token]);
  let audit: Audit;
  try {
    audit = await auditRecord(upstream, record, receipt, expected, job);
  } catch (error) {
    throw new Error(scrub(error instanceof Error ? error.message : String(error)), { cause: error });
  }
  io.stdout(values.json ? `${JSON.stringify(audit)}\n` : render(target, audit));
  return audit.agree ? EXIT_OK : EXIT_CHANGES;
}

interface Audit {
  record: string;
  repository: string;
  run: ReceiptJson['run'];
  ledger: ReceiptJson['ledger'];
  recorded: { state: string; description: string };
  recomputed: Pick<ReceiptJson, 'state' | 'description' | 'violations' | 'unchecked'>;
  agree: boolean;
  disagreements: Disagreement[];
  /** what the audit could not check, and why: it agrees on the rest only */
  notChecked: string[];
}

/** The ledger's seal cannot be checked: its key never leaves the runner (src/action/record.ts). */
const UNSEALED =
  "the ledger's seal: its key never leaves the runner, so the ledger is read in order and whole as written, not proven to be the gateway's";
const RECORD_WINDOW =
  "the window: the record's own, not GitHub's (pass --job with the agent job's name to take it from GitHub's jobs API)";

/**
 * The ledger as the record has it, read in order without its key (which never leaves the runner); what the
 * receipt says about it is checked, never taken. A commit it claims still counts as the gateway's only when
 * GitHub made it (verifyJob).
 */
function ledgerOf(record: RecordFiles, receipt: ReceiptJson): LedgerFacts | null {
  if (!receipt.ledger.included && record.ledger === null) return null;
  if (record.ledger === null)
    return { ok: false, problem: 'the record holds no ledger', commits: [], records: 0, perPerimeter: {} };
  return ledgerFactsOf(record.ledger, null);
}

/**
 * The window to judge: GitHub's record of the agent job (`--job`), as the verify job takes it, opened as early
 * as the record's when that is earlier (a wider window hides nothing). The record's own window must lie inside
 * it, else it is named: moved, it could leave the agent's pushes outside.
 */
async function windowOf(
  upstream: RunRecords,
  receipt: ReceiptJson,
  job: string,
): Promise<{ startedAt: string; endedAt: string; disagreements: Disagreement[] }> {
  const runId = Number(receipt.run.id);
  const window = agentJobWindow(await upstream.listRunJobs(runId), {
    name: job,
    runId,
    attempt: Number(receipt.run.attempt) || 1,
  });
  // an honest record opens START_MARGIN_MS before main's first read, which may come right at the job's start
  const inside =
    Date.parse(receipt.window.startedAt) >= Date.parse(window.since) - START_MARGIN_MS &&
    Date.parse(receipt.window.endedAt) <= Date.parse(window.until);
  const disagreements: Disagreement[] = inside
    ? []
    : [
        {
          field: 'window',
          message: `the record says ${receipt.window.startedAt} to ${receipt.window.endedAt}, which is not inside the job "${job}" as GitHub records it (${window.since} to ${window.until})`,
        },
      ];
  // the earlier start of the two: what the honest post judged, never less than GitHub's job
  const startedAt = Math.min(Date.parse(receipt.window.startedAt), Date.parse(window.since));
  return { startedAt: new Date(startedAt).toISOString(), endedAt: window.until, disagreements };
}

const names = (value: string): string[] => value.split(/[\s,]+/).filter(Boolean);

/** The workflow's values the owner passed, read as the action reads its inputs. */
function expectedSettings(values: Record<string, string | boolean | undefined>): ExpectedSettings {
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const expected: ExpectedSettings = {};
  const config = text('config');
  if (config !== undefined) expected.configFile = config;
  const configRef = text('config-ref');
  if (configRef !== undefined) expected.configRef = configRef;
  const perimeters = text('perimeters');
  if (perimeters !== undefined) {
    const list = names(perimeters);
    expected.perimeters = list.length === 0 || (list.length === 1 && list[0] === 'all') ? null : list;
  }
  const direct = text('direct-pushes');
  if (direct !== undefined) {
    if (direct !== 'check' && direct !== 'deny')
      throw new UsageError(`--direct-pushes: expected "check" or "deny", got ${JSON.stringify(direct)}`);
    expected.directPushes = direct;
  }
  const require = text('require-changes');
  if (require !== undefined) {
    if (require !== 'true' && require !== 'false')
      throw new UsageError(`--require-changes: expected "true" or "false", got ${JSON.stringify(require)}`);
    expected.requireChanges = require === 'true';
  }
  const ignore = text('ignore-refs');
  if (ignore !== undefined) expected.ignoreRefs = names(ignore);
  return expected;
}

/**
 * The record's perimeters compiled from the trusted text. A name that text does not define is named and left
 * out: judging with fewer perimeters is only ever stricter.
 */
function perimetersOf(
  text: string,
  at: string,
  receipt: ReceiptJson,
): { perimeters: Perimeter[]; defined: string[]; disagreements: Disagreement[] } {
  const config = parseConfig(text, at);
  const disagreements: Disagreement[] = [];
  const perimeters: Perimeter[] = [];
  for (const name of receipt.perimeters) {
    const spec = config.perimeters.find((p) => p.name === name);
    if (spec) perimeters.push(compilePerimeter(spec, receipt.config.file));
    else
      disagreements.push({
        field: 'perimeters',
        message: `the record names perimeter ${JSON.stringify(name)}, which ${at} does not define`,
      });
  }
  return { perimeters, defined: config.perimeters.map((p) => p.name), disagreements };
}

/**
 * The rule main, the verify job and apply judge a config ref by, on the record's ref: a file read from a
 * branch the job may write (the bound branch, or one an exposed perimeter may be bound to) could have widened
 * its own perimeter, and a ref no ruleset locks (a tag, say) could have been moved or created by the job's
 * token. The rulesets are read with the auditor's token: one that may bypass a ruleset finds no lock in it,
 * which refuses more, never less.
 */
async function movableConfigRef(
  upstream: RepoReads,
  receipt: ReceiptJson,
  perimeters: Perimeter[],
  defaultBranch: string,
): Promise<Disagreement[]> {
  const configRef = receipt.config.ref ?? defaultBranch;
  const verdict = judgeConfigRef({
    configRef,
    defaultBranch,
    branch: receipt.branch,
    perimeters,
    heads: receipt.refs.start,
    rulesets: configRefNeedsRulesets(configRef, defaultBranch) ? await upstream.listRulesets() : [],
  });
  return verdict.kind === 'refused' ? [{ field: 'config', message: verdict.message }] : [];
}

/**
 * The verify job's window, with the receipt it posted after uploading this record (the status, and with
 * receipt-as check-run or both the check run) known as its own.
 */
async function withOwnReceipt(
  upstream: Receipts,
  receipt: ReceiptJson,
  { receiptWindow }: NonNullable<ReceiptJson['verifyJob']>,
): Promise<ReceiptWindow> {
  const head = receipt.refs.end[`refs/heads/${receipt.branch}`] ?? receipt.heads.start;
  if (head === null) return receiptWindow;
  const verdict = {
    context: receiptWindow.context,
    state: receipt.state,
    description: receipt.description,
    endedAt: receipt.window.endedAt,
  };
  const known = [...receiptWindow.known, ...ownReceiptIds(await upstream.listStatuses(head), verdict)];
  if (!receiptWindow.checkRuns) return { ...receiptWindow, known };
  const runs = await upstream.listCheckRuns(head, receiptWindow.context);
  return { ...receiptWindow, known, knownCheckRuns: ownCheckRunIds(runs, verdict) };
}

async function auditRecord(
  upstream: RepoReads & RepoWrites & Receipts & RunRecords,
  record: RecordFiles,
  receipt: ReceiptJson,
  expected: ExpectedSettings,
  job: string | null,
): Promise<Audit> {
  const ledger = ledgerOf(record, receipt);
  const window =
    job === null ? { ...receipt.window, disagreements: [] } : await windowOf(upstream, receipt, job);
  const trusted = await trustedConfig(upstream, receipt);
  const configText = trusted.text;
  const { perimeters, defined, disagreements: unknown } = perimetersOf(configText, trusted.at, receipt);
  const writable = await movableConfigRef(upstream, receipt, perimeters, trusted.defaultBranch);
  const receiptWindow = receipt.verifyJob && (await withOwnReceipt(upstream, receipt, receipt.verifyJob));
  const verdict = await verifyJob({
    upstream,
    branch: receipt.branch,
    start: receipt.refs.start,
    end: receipt.refs.end,
    perimeters,
    ledger,
    directPushes: receipt.directPushes,
    requireChanges: receipt.requireChanges ?? false,
    ignoreRefs: receipt.ignoreRefs,
    // what the job's post step could not check (the gateway died, say) stays unchecked: only ever stricter
    problems: receipt.unchecked,
    startedAt: window.startedAt,
    endedAt: window.endedAt,
    // a verify job's record: judged without a ledger, statuses on the receipt's context looked at
    ...(receiptWindow && { ledgerExpected: false, receiptWindow }),
  });
  const recomputed = receiptJson(verdict, {
    repository: receipt.repository,
    context: receipt.context,
    run: receipt.run,
    config: { file: receipt.config.file, ref: receipt.config.ref, text: configText },
    perimeters: perimeters.map((p) => p.name),
    directPushes: receipt.directPushes,
    requireChanges: receipt.requireChanges ?? false,
    ignoreRefs: receipt.ignoreRefs,
    window: receipt.window,
    refs: receipt.refs,
    ledger,
    ledgerIncluded: record.ledger !== null,
    ...(receipt.verifyJob && { receiptWindow: receipt.verifyJob.receiptWindow }),
  });
  const disagreements = [
    ...window.disagreements,
    ...trusted.disagreements,
    ...writable,
    ...unknown,
    ...compareSettings(receipt, expected, defined),
    ...compareReceipts(receipt, recomputed),
  ];
  return {
    record: record.source,
    repository: receipt.repository,
    run: receipt.run,
    ledger: recomputed.ledger,
    recorded: { state: receipt.state, description: receipt.description },
    recomputed: {
      state: recomputed.state,
      description: recomputed.description,
      violations: recomputed.violations,
      unchecked: recomputed.unchecked,
    },
    agree: disagreements.length === 0,
    disagreements,
    notChecked: [...(record.ledger === null ? [] : [UNSEALED]), ...(job === null ? [RECORD_WINDOW] : [])],
  };
}

/**
 * The audit for a terminal. Everything but Perimeter's own words comes from the record or the repository, so
 * it is shown `visible`: no escape sequence, carriage return or line break can redraw the verdict.
 */
function render(target: string, audit: Audit): string {
  const { ledger } = audit;
  const run = `run ${visible(audit.run.id)} attempt ${visible(audit.run.attempt)}, job ${visible(audit.run.job)}`;
  const lines = [
    `Audit of ${visible(target)}: ${visible(audit.repository)}, ${run}`,
    `  ledger:     ${!ledger.included ? 'none' : ledger.ok ? `${ledger.records} records in order, unsealed` : `BROKEN: ${visible(ledger.problem ?? 'unknown')}`}`,
    `  receipt:    ${visible(audit.recorded.state)}: ${visible(audit.recorded.description)}`,
    `  GitHub:     ${audit.recomputed.state}: ${visible(audit.recomputed.description)}`,
  ];
  if (audit.agree)
    lines.push(
      audit.notChecked.length === 0
        ? 'The receipt agrees with GitHub.'
        : 'The receipt agrees with GitHub on everything checked.',
    );
  else {
    lines.push(`The receipt disagrees with GitHub (${audit.disagreements.length}):`);
    for (const d of audit.disagreements) lines.push(`  - ${visible(d.field)}: ${visible(d.message)}`);
  }
  if (audit.notChecked.length > 0) {
    lines.push('Not checked:');
    for (const what of audit.notChecked) lines.push(`  - ${what}`);
  }
  return `${lines.join('\n')}\n`;
}
