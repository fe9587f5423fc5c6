import type { CheckRunRecord, StatusRecord } from '../../github/index.js';
import { oneLine } from './limits.js';

/**
 * The verify job's own receipt among a commit's statuses, for an audit of its record. The record is uploaded
 * before the receipt is posted, so it cannot hold the receipt's id: the receipt is the status carrying the
 * record's verdict word for word, posted no earlier than the second of the verify job's end snapshot
 * (GitHub's times are whole seconds). The agent job had ended before the verify job began, so a status of
 * the agent's can only match by being posted within that second with exactly the verdict's words.
 */
export function ownReceiptIds(statuses: readonly StatusRecord[], receipt: RecordedVerdict): number[] {
  const from = endSecond(receipt);
  const description = posted(receipt);
  return statuses
    .filter(
      (status) =>
        status.context === receipt.context &&
        status.state === receipt.state &&
        status.description === description &&
        Date.parse(status.createdAt) >= from,
    )
    .map((status) => status.id);
}

/**
 * The same for the verify job's own check run (receipt-as: check-run or both), created after its record too:
 * the run of the receipt's name whose title is the verdict's words and whose conclusion is the verdict's,
 * started no earlier than the second of the end snapshot.
 */
export function ownCheckRunIds(runs: readonly CheckRunRecord[], receipt: RecordedVerdict): number[] {
  const from = endSecond(receipt);
  const title = posted(receipt);
  const conclusion = receipt.state === 'success' ? 'success' : 'failure';
  return runs
    .filter(
      (run) =>
        run.name === receipt.context &&
        run.title === title &&
        run.conclusion === conclusion &&
        Date.parse(run.startedAt ?? '') >= from,
    )
    .map((run) => run.id);
}

/** What a record says of the verdict it holds, and when its verify job took the end snapshot. */
interface RecordedVerdict {
  context: string;
  state: string;
  description: string;
  endedAt: string;
}

const endSecond = (receipt: RecordedVerdict): number => Math.floor(Date.parse(receipt.endedAt) / 1000) * 1000;
const posted = (receipt: RecordedVerdict): string => oneLine(receipt.description);
