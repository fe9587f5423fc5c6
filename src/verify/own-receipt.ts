import type { StatusRecord } from '../github/upstream.js';
import { clip, visible } from './escape.js';
import { MAX_DESCRIPTION } from './receipt.js';

/**
 * The verify job's own receipt among a commit's statuses, for an audit of its record. The record is uploaded
 * before the receipt is posted, so it cannot hold the receipt's id: the receipt is the status carrying the
 * record's verdict word for word, posted no earlier than the second of the verify job's end snapshot
 * (GitHub's times are whole seconds). The agent job had ended before the verify job began, so a status of
 * the agent's can only match by being posted within that second with exactly the verdict's words.
 */
export function ownReceiptIds(
  statuses: readonly StatusRecord[],
  receipt: { context: string; state: string; description: string; endedAt: string },
): number[] {
  const from = Math.floor(Date.parse(receipt.endedAt) / 1000) * 1000;
  const description = clip(visible(receipt.description), MAX_DESCRIPTION);
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
