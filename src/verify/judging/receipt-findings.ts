import type { ForeignCheckRun, ForeignStatus, JobFacts, Violation } from '../types.js';
import { short } from './short.js';

/** Forged statuses on one commit named one by one; more are named together (an agent may post a thousand). */
const FORGED_NAMED_ONE_BY_ONE = 3;

/**
 * A status on the receipt's context posted during the job that Perimeter did not post: someone with the job's
 * access (the agent, with the token it read from the gateway) posted a receipt of its own.
 */
function forgedReceipts(foreign: ForeignStatus[]): Violation[] {
  const bySha = new Map<string, ForeignStatus[]>();
  for (const found of foreign.filter((f) => f.inWindow))
    bySha.set(found.sha, [...(bySha.get(found.sha) ?? []), found]);
  return [...bySha].flatMap(([sha, found]) => {
    const describe = ({ status }: ForeignStatus): string =>
      `a "${status.state}" status on "${status.context}" of ${short(sha)} (id ${status.id}, by ${status.creator ?? 'unknown'}, ${status.createdAt})`;
    if (found.length <= FORGED_NAMED_ONE_BY_ONE)
      return found.map((f) => ({
        kind: 'forged-receipt' as const,
        message: `forged receipt: ${describe(f)} was posted during the job, not by Perimeter`,
      }));
    const states = [...new Set(found.map((f) => f.status.state))].join(', ');
    return [
      {
        kind: 'forged-receipt' as const,
        message: `forged receipt: ${found.length} statuses (${states}) on "${found[0]!.status.context}" of ${short(sha)} were posted during the job, not by Perimeter; the newest: ${describe(found[0]!)}`,
      },
    ];
  });
}

/** A check run named like the receipt, not Perimeter's: the agent's token can create one as github-actions. */
function forgedCheckRuns(foreign: ForeignCheckRun[]): Violation[] {
  return foreign.map(({ sha, run }) => ({
    kind: 'forged-receipt' as const,
    message: `forged receipt: a check run "${run.name}" (${run.conclusion ?? run.status}) on ${short(sha)} (id ${run.id}, app ${run.app ?? 'unknown'}, started ${run.startedAt ?? 'at no stated time'}) was created during the job or claims a later time, not by Perimeter`,
  }));
}

/** Receipts someone other than Perimeter posted during the job; those posted after it are noted. */
export function receiptFindings(facts: JobFacts, notes: string[]): Violation[] {
  const violations: Violation[] = [];
  violations.push(...forgedReceipts(facts.foreignStatuses ?? []));
  violations.push(...forgedCheckRuns(facts.foreignCheckRuns ?? []));
  for (const { sha, status } of (facts.foreignStatuses ?? []).filter((f) => !f.inWindow))
    notes.push(
      `a "${status.state}" status on "${status.context}" of ${short(sha)} was posted after the job ended (id ${status.id}, by ${status.creator ?? 'unknown'}, ${status.createdAt}): not the job's, and not this receipt`,
    );
  return violations;
}
