export type { BlobFacts, Change, CommitChanges } from './change.js';
export { renderCheckRun, type CheckRunFacts, type CheckRunReceipt } from './receipts/check-run.js';
export { diffTrees } from './gathering/diff-trees.js';
export { judgeCommit, type CommitJudgement, type CommitToJudge } from './judging/commit-judge.js';
export { blobFactsOf, readBlobFacts } from './gathering/blob-facts.js';
export { clip, codeBlock, inlineText, markdownText, visible } from './receipts/escape.js';
export { judge } from './judging/judge.js';
export { compareSnapshots } from './judging/ref-findings.js';
export { decideFile, decideWrite, fileViolations } from './judging/file-decisions.js';
export {
  compareReceipts,
  compareSettings,
  type Disagreement,
  type ExpectedSettings,
} from './receipts/audit-compare.js';
export { ledgerFactsOf, readLedgerFacts } from './gathering/ledger-facts.js';
export { headline } from './receipts/headline.js';
export {
  CHECK_RUN_ANNOTATIONS_PER_REQUEST,
  MAX_CHECK_RUN_ANNOTATIONS,
  MAX_CHECK_RUN_TEXT,
  MAX_ANNOTATIONS,
  MAX_DESCRIPTION,
  oneLine,
  SUMMARY_BUDGET,
} from './receipts/limits.js';
export {
  renderErrorReceipt,
  renderNotice,
  renderReceipt,
  STATUS_CONTEXT,
  type Annotation,
  type Receipt,
  type ReceiptOptions,
} from './receipts/receipt.js';
export {
  parseReceiptJson,
  receiptJson,
  receiptSchema,
  ReceiptFormatError,
  RECEIPT_SCHEMA,
  RECEIPT_VERSION,
  RECORD_FILES,
  type ReceiptContext,
  type ReceiptJson,
} from './receipts/receipt-json.js';
export { ownCheckRunIds, ownReceiptIds } from './receipts/own-receipt.js';
export { renderSummary } from './receipts/summary.js';
export { renderScopeRequests } from './receipts/scope-requests.js';
export type {
  Baseline,
  CommitAttribution,
  BranchHistory,
  CaughtUpActivity,
  FileDecision,
  JobFacts,
  JudgingRules,
  ReceiptWindow,
  LedgerFacts,
  PerimeterCounts,
  ScopeRequest,
  RefChange,
  RefSnapshot,
  Verdict,
  VerifyInput,
  Violation,
  ViolationKind,
} from './types.js';
export { snapshotRefs, verifyJob } from './verify-job.js';
export { readJobActivity } from './gathering/activity.js';
export { startFromActivity } from './gathering/ref-accounting.js';
export { PULL_REQUEST_COMMIT_LIMIT, verifyPullRequest, type PullRequestInput } from './pull-request.js';
export { attributePullCommits, type CommitJudge } from './judging/pull-attribution.js';
export {
  AgentJobError,
  agentJobWindow,
  END_MARGIN_MS,
  START_MARGIN_MS,
  type AgentJobWindow,
} from './runs/agent-job.js';
export { judgeRecordArtifact, RecordEvidenceError, type RecordEvidence } from './runs/record-evidence.js';
