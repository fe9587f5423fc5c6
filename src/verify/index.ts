export type { Change } from './change.js';
export { renderCheckRun, type CheckRunFacts, type CheckRunReceipt } from './check-run.js';
export { diffTrees } from './diff-trees.js';
export { judgeCommit, type CommitToJudge } from './commit-judge.js';
export { clip, codeBlock, inlineText, markdownText, visible } from './escape.js';
export { compareSnapshots, decideWrite, fileViolations, judge, type JobFacts } from './judge.js';
export { compareReceipts, type Disagreement } from './audit-compare.js';
export { ledgerFactsOf, readLedgerFacts } from './ledger-facts.js';
export {
  headline,
  renderReceipt,
  CHECK_RUN_ANNOTATIONS_PER_REQUEST,
  MAX_CHECK_RUN_ANNOTATIONS,
  MAX_CHECK_RUN_TEXT,
  MAX_ANNOTATIONS,
  MAX_DESCRIPTION,
  STATUS_CONTEXT,
  type Annotation,
  type Receipt,
} from './receipt.js';
export {
  gitBlobSha,
  parseReceiptJson,
  receiptJson,
  receiptSchema,
  ReceiptFormatError,
  RECEIPT_SCHEMA,
  RECEIPT_VERSION,
  RECORD_FILES,
  type ReceiptContext,
  type ReceiptJson,
} from './receipt-json.js';
export { ownCheckRunIds, ownReceiptIds } from './own-receipt.js';
export type { ReceiptWindow } from './receipt-statuses.js';
export { renderSummary, SUMMARY_BUDGET } from './summary.js';
export type {
  Baseline,
  CommitAttribution,
  FileDecision,
  LedgerFacts,
  PerimeterCounts,
  RefChange,
  RefSnapshot,
  Verdict,
  VerifyInput,
  Violation,
  ViolationKind,
} from './types.js';
export { snapshotRefs, verifyJob } from './verify-job.js';
export { PULL_REQUEST_COMMIT_LIMIT, verifyPullRequest, type PullRequestInput } from './pull-request.js';
