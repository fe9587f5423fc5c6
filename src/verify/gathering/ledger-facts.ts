import { readFile } from 'node:fs/promises';
import { checkChain } from '../../ledger/index.js';
import type { LedgerFacts } from '../types.js';

/** What the post step needs from a ledger; never throws, a missing or broken ledger is a problem. */
export async function readLedgerFacts(path: string, key: string): Promise<LedgerFacts> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return {
      ok: false,
      problem: `cannot read the ledger: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      commits: [],
      perPerimeter: {},
    };
  }
  return ledgerFactsOf(text, key);
}

/**
 * The same facts from a ledger's text. `key` null (a downloaded record: the key never leaves the runner):
 * read in order, unsealed, as checkChain reads it without a key.
 */
export function ledgerFactsOf(text: string, key: string | null): LedgerFacts {
  const verdict = checkChain(text, key);
  const facts: LedgerFacts = {
    ok: verdict.ok,
    commits: [],
    records: verdict.verified.length,
    ...(verdict.verified.length > 0 && { head: verdict.verified.at(-1)!.mac }),
    perPerimeter: {},
  };
  for (const record of verdict.verified) {
    if (record.event === 'start')
      for (const name of record.perimeters ?? []) facts.perPerimeter[name] ??= { calls: 0, refusals: 0 };
    if (record.event !== 'call') continue;
    const counts = (facts.perPerimeter[record.perimeter] ??= { calls: 0, refusals: 0 });
    counts.calls++;
    if (record.decision === 'refused') counts.refusals++;
    if (record.hidden_values) counts.hidden = (counts.hidden ?? 0) + record.hidden_values;
    if (record.decision === 'refused' && record.refused_for?.includes('credential'))
      counts.credentialRefusals = (counts.credentialRefusals ?? 0) + 1;
    if (record.commit) facts.commits.push(record.commit);
    if (record.scope && record.decision === 'allowed')
      (facts.scopeRequests ??= []).push({ perimeter: record.perimeter, ...record.scope });
  }
  if (!verdict.ok) facts.problem = `the ledger is broken at ${verdict.problem}`;
  else if (verdict.verified.length === 0) {
    facts.ok = false;
    facts.problem = 'the ledger is empty';
  } else if (verdict.verified.at(-1)!.event !== 'stop') {
    facts.ok = false;
    facts.problem = 'the ledger has no closing record: the gateway did not stop cleanly';
  }
  return facts;
}
