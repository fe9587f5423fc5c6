import * as core from '@actions/core';
import { existsSync } from 'node:fs';
import { blobSha } from '../../github/index.js';
import { inlineText, readLedgerFacts, RECORD_FILES, type LedgerFacts } from '../../verify/index.js';
import { State } from '../constants.js';
import type { Settings } from '../inputs.js';
import { writeSummary } from '../publish.js';
import { failOnTakenName, recordLine, uploadRecord } from '../record.js';
import type { StateStore } from './state.js';

/**
 * What the agent job's post step leaves for people when the verify job posts the receipt: what main fixed
 * and what the gateway saw. It decides nothing: the verify job judges from its own inputs and GitHub's
 * records, and audits the verify job's record, not this one.
 */
export interface HandOver {
  schema: 'perimeter-handover';
  version: 1;
  receiptBy: 'verify-job';
  repository: string;
  branch: string;
  run: Settings['run'] & { url: string | null };
  window: { startedAt: string; endedAt: string };
  /** ref null: the default branch */
  config: { file: string; ref: string | null; blobSha: string };
  perimeters: string[];
  startHead: string;
  /** what went wrong on this runner: the gateway died, the ledger does not verify */
  problems: string[];
  ledger: {
    included: boolean;
    ok: boolean;
    problem: string | null;
    records: number;
    commits: string[];
    perPerimeter: LedgerFacts['perPerimeter'];
  };
}

/**
 * Post with `receipt-by: verify-job`: the verify job re-reads everything post would verify, from GitHub, with
 * a token of its own, so post verifies nothing and makes no request to GitHub. It uploads the record (the
 * ledger and this hand-over) and says what the gateway saw; a gateway that died or a ledger that does not
 * verify fails the step, so the run shows it, while the receipt stays the verify job's.
 */
export async function handOver(
  settings: Settings,
  store: StateStore,
  branch: string,
  main: { startHead: string; startedAt: string; configText: string; configFile: string },
  problems: string[],
): Promise<void> {
  const ledgerPath = store.get(State.LedgerPath);
  const key = store.get(State.LedgerKey);
  const facts = ledgerPath && key ? await readLedgerFacts(ledgerPath, key) : null;
  if (facts && !facts.ok) problems.push(`the gateway's ledger does not verify: ${facts.problem}`);
  const included = ledgerPath !== '' && existsSync(ledgerPath);
  const document: HandOver = {
    schema: 'perimeter-handover',
    version: 1,
    receiptBy: 'verify-job',
    repository: `${settings.owner}/${settings.repo}`,
    branch,
    run: { ...settings.run, url: settings.runUrl ?? null },
    window: { startedAt: main.startedAt, endedAt: new Date().toISOString() },
    config: {
      file: main.configFile,
      ref: store.get(State.ConfigRef) || settings.configRef,
      blobSha: blobSha(Buffer.from(main.configText, 'utf8')),
    },
    perimeters: JSON.parse(store.get(State.Perimeters) || '[]') as string[],
    startHead: main.startHead,
    problems,
    ledger: {
      included,
      ok: facts?.ok ?? false,
      problem: facts === null ? 'no ledger: main never started a gateway' : (facts.problem ?? null),
      records: facts?.records ?? 0,
      commits: facts?.commits ?? [],
      perPerimeter: facts?.perPerimeter ?? {},
    },
  };
  const record = await uploadRecord(
    settings,
    { file: RECORD_FILES.handover, json: document },
    included ? { path: ledgerPath } : null,
  );
  core.summary.addRaw(handOverSummary(document), true).addRaw(`\n${recordLine(record)}\n`, true);
  await writeSummary();
  if (problems.length > 0)
    core.setFailed(`Perimeter: ${problems.join('; ')} (the verify job posts the receipt)`);
  else core.info('Perimeter: handed over to the verify job, which posts the receipt');
  failOnTakenName(record);
}

/** The summary's lines: who posts the receipt, and what the gateway saw, per perimeter. */
export function handOverSummary(document: HandOver): string {
  const lines = [
    '## Perimeter: handed over to the verify job',
    '',
    `This job's pushes are judged by the verify job (\`receipt-by: verify-job\`), from GitHub's records and its own inputs; this step read nothing from GitHub.`,
    '',
  ];
  const entries = Object.entries(document.ledger.perPerimeter);
  if (entries.length === 0) lines.push('The gateway answered no call.');
  else {
    lines.push('| perimeter | calls | refused |', '|---|---|---|');
    for (const [name, counts] of entries)
      lines.push(`| ${inlineText(name)} | ${counts.calls} | ${counts.refusals} |`);
  }
  const commits = document.ledger.commits.length;
  lines.push('', `Commits the gateway made: ${commits}.`);
  for (const problem of document.problems) lines.push('', `**Problem:** ${inlineText(problem)}`);
  return `${lines.join('\n')}\n`;
}
