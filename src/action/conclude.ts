import type { Receipts } from '../github/index.js';
import { renderReceipt, type CheckRunFacts, type ReceiptJson, type Verdict } from '../verify/index.js';
import type { RecordSettings, Settings } from './inputs.js';
import { publishReceipt } from './publish.js';
import { failOnTakenName, recordLine, uploadRecord, type LedgerFiles } from './record.js';
import { judgedOutcome } from './step.js';

/** What every judging step concludes with, from its own inputs. */
export type ConcludeSettings = Pick<
  Settings,
  'runUrl' | 'repositoryUrl' | 'failOnViolation' | 'receiptBy' | 'receiptAs'
>;

export interface Conclusion {
  /** the receipt's context (the status context, also the check run's name) */
  context: string;
  /** the commits the receipt goes on, the head a reviewer looks at first */
  shas: string | readonly string[];
  /** what the check run cites */
  evidence: CheckRunFacts;
  /** the record to upload first: the JSON receipt and its files; absent where no record is kept (the gate) */
  record?: {
    json: ReceiptJson;
    ledger: LedgerFiles | null;
    staged: string | null;
    /** the step's record inputs and its temporary directory */
    to: { record: RecordSettings; tempDir: string };
  };
  /** more for the job summary after the receipt (the hosts the agent reached, its scope requests) */
  summary?: string;
  /** the gateway log's last lines, shown when something went wrong */
  gatewayLog?: string;
  /** true once the step gave up on this conclusion (post's verify-timeout): nothing more is published */
  abandoned?: () => boolean;
}

/**
 * The conclude step of post, the verify job and the pull-request gate: the verdict becomes the record, every
 * form of the receipt, published last (nothing after it can change what it says), and the step's outcome.
 */
export async function conclude(
  upstream: Receipts,
  settings: ConcludeSettings,
  verdict: Verdict,
  conclusion: Conclusion,
): Promise<void> {
  const { record } = conclusion;
  const uploaded = record ? await uploadRecord(record.to, record.json, record.ledger, record.staged) : null;
  if (conclusion.abandoned?.()) return;
  const receipt = renderReceipt(verdict, {
    runUrl: settings.runUrl,
    repositoryUrl: settings.repositoryUrl,
    context: conclusion.context,
    evidence: conclusion.evidence,
  });
  receipt.summary += conclusion.summary ?? '';
  const unpublished = await publishReceipt(upstream, settings, receipt, conclusion.shas, {
    ...(conclusion.gatewayLog ? { gatewayLog: conclusion.gatewayLog } : {}),
    ...(uploaded ? { recordNote: recordLine(uploaded) } : {}),
  });
  judgedOutcome(
    { state: verdict.state, headline: receipt.status.description, unpublished },
    settings.failOnViolation,
  );
  if (uploaded) failOnTakenName(uploaded);
}
