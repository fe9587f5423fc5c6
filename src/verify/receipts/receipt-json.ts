import { blobSha } from '../../github/index.js';
import { z } from 'zod';
import { headline } from './headline.js';
import type { ReceiptWindow } from '../types.js';
import type { JudgingRules, LedgerFacts, RefSnapshot, Verdict } from '../types.js';

/**
 * The machine-readable receipt: the verdict and everything an audit needs to recompute it later (the
 * window, the refs at both ends, the config's blob). One schema, versioned, for whoever writes one (the
 * post step, the verify job) and whoever reads one (`perimeter audit`). A reader refuses a version it does
 * not know rather than guess.
 */
export const RECEIPT_SCHEMA = 'perimeter-receipt';
export const RECEIPT_VERSION = 1;

/** The files of the record (the workflow artifact), by these names at its root. */
export const RECORD_FILES = {
  receipt: 'receipt.json',
  /** the gateway's ledger; its key stays on the runner, never beside it */
  ledger: 'ledger.jsonl',
  /** the staged change set (writes: stage), for perimeter/apply */
  staged: 'staged.json',
  /** post's hand-over when the verify job posts the receipt (receipt-by: verify-job): no verdict */
  handover: 'handover.json',
} as const;

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'a 40-character commit SHA');
const snapshot = z.record(z.string(), sha);

export const receiptSchema = z.strictObject({
  schema: z.literal(RECEIPT_SCHEMA),
  version: z.literal(RECEIPT_VERSION),
  state: z.enum(['success', 'failure', 'error']),
  description: z.string(),
  /** 'owner/name' */
  repository: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'owner/name'),
  branch: z.string().min(1),
  context: z.string().min(1),
  run: z.strictObject({
    id: z.string(),
    attempt: z.string(),
    job: z.string(),
    url: z.string().nullable(),
  }),
  config: z.strictObject({
    file: z.string().min(1),
    /** the ref it was read from; null: the default branch */
    ref: z.string().nullable(),
    /** git's blob SHA of the text judged with */
    blobSha: sha,
  }),
  perimeters: z.array(z.string()),
  directPushes: z.enum(['check', 'deny']),
  /** the require-changes input; absent in records made before it existed: false */
  requireChanges: z.boolean().optional(),
  ignoreRefs: z.array(z.string()),
  /** on GitHub's clock: the activity list is read from startedAt; endedAt when post took the end snapshot */
  window: z.strictObject({ startedAt: z.iso.datetime(), endedAt: z.iso.datetime() }),
  heads: z.strictObject({ start: sha.nullable(), end: sha.nullable() }),
  refs: z.strictObject({ start: snapshot, end: snapshot }),
  violations: z.array(
    z.strictObject({
      kind: z.enum([
        'path',
        'symlink',
        'submodule',
        'history',
        'branch-deleted',
        'ref',
        'direct-push',
        'forged-receipt',
        'no-change',
      ]),
      message: z.string(),
      path: z.string().optional(),
      ref: z.string().optional(),
    }),
  ),
  unchecked: z.array(z.string()),
  notes: z.array(z.string()),
  files: z.array(
    z.strictObject({
      path: z.string(),
      kind: z.enum(['added', 'modified', 'deleted']),
      allowed: z.boolean(),
      rule: z.string(),
      perimeter: z.string().optional(),
      transient: z.boolean().optional(),
    }),
  ),
  commits: z.strictObject({
    gateway: z.array(sha),
    others: z.array(sha),
    direct: z.array(sha),
    unattributed: z.array(sha),
    complete: z.boolean(),
  }),
  /**
   * Present when the verify job judged (perimeter/verify): no ledger was expected, and any status on the
   * receipt's context in this window that Perimeter did not post (ids in `known`) is a forged receipt.
   */
  verifyJob: z
    .strictObject({
      receiptWindow: z.strictObject({
        context: z.string().min(1),
        known: z.array(z.number().int()),
        since: z.iso.datetime(),
        until: z.iso.datetime(),
        checkRuns: z.boolean().optional(),
        knownCheckRuns: z.array(z.number().int()).optional(),
      }),
    })
    .optional(),
  ledger: z.strictObject({
    /** whether a ledger is in the record (RECORD_FILES.ledger) */
    included: z.boolean(),
    ok: z.boolean(),
    problem: z.string().nullable(),
    /** records that verified, and the MAC of the last of them (the chain head) */
    records: z.number().int().nonnegative(),
    head: z.string().nullable(),
  }),
});

export type ReceiptJson = z.infer<typeof receiptSchema>;

/** What the receipt says beyond the verdict: who judged what, with which config, over which window. */
export interface ReceiptContext
  extends Pick<JudgingRules, 'directPushes' | 'ignoreRefs'>, Partial<Pick<JudgingRules, 'requireChanges'>> {
  repository: string;
  /** the status context the receipt is posted on */
  context: string;
  run: ReceiptJson['run'];
  /** the perimeters file as judged with: its path, the ref it was read at (null: the default branch), its text */
  config: { file: string; ref: string | null; text: string };
  /** the perimeters that judged, by name */
  perimeters: string[];
  window: ReceiptJson['window'];
  refs: { start: RefSnapshot; end: RefSnapshot };
  ledger: LedgerFacts | null;
  /** whether the ledger file goes into the record with the receipt */
  ledgerIncluded: boolean;
  /** the verify job's: the window in which a status on the receipt's context it did not expect is forged */
  receiptWindow?: ReceiptWindow;
}

export function receiptJson(verdict: Verdict, context: ReceiptContext): ReceiptJson {
  const { ledger } = context;
  return {
    schema: RECEIPT_SCHEMA,
    version: RECEIPT_VERSION,
    state: verdict.state,
    description: headline(verdict),
    repository: context.repository,
    branch: verdict.branch,
    context: context.context,
    run: context.run,
    config: {
      file: context.config.file,
      ref: context.config.ref,
      blobSha: blobSha(Buffer.from(context.config.text, 'utf8')),
    },
    perimeters: context.perimeters,
    directPushes: context.directPushes,
    requireChanges: context.requireChanges ?? false,
    ignoreRefs: context.ignoreRefs,
    window: context.window,
    heads: { start: verdict.startHead, end: verdict.endHead },
    refs: context.refs,
    violations: verdict.violations.map(({ kind, message, path, ref }) => ({
      kind,
      message,
      ...(path !== undefined && { path }),
      ...(ref !== undefined && { ref }),
    })),
    unchecked: verdict.unchecked,
    notes: verdict.notes,
    files: verdict.files.map(({ path, kind, allowed, rule, perimeter, transient }) => ({
      path,
      kind,
      allowed,
      rule,
      ...(perimeter !== undefined && { perimeter }),
      ...(transient !== undefined && { transient }),
    })),
    commits: verdict.commits,
    ...(context.receiptWindow && { verifyJob: { receiptWindow: context.receiptWindow } }),
    ledger: {
      included: context.ledgerIncluded,
      ok: ledger?.ok ?? false,
      problem: ledger === null ? noLedger(context) : (ledger.problem ?? null),
      records: ledger?.records ?? 0,
      head: ledger?.head ?? null,
    },
  };
}

const noLedger = (context: ReceiptContext): string =>
  context.receiptWindow
    ? "none used: the verify job judges from GitHub's records alone"
    : 'no ledger: main never started a gateway';

export class ReceiptFormatError extends Error {
  override name = 'ReceiptFormatError';
}

/** Parses and checks a receipt; the message names every field at fault, never a stack. */
export function parseReceiptJson(text: string, source: string = RECORD_FILES.receipt): ReceiptJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ReceiptFormatError(`${source}: not JSON (${(error as Error).message})`);
  }
  const { schema, version } = (value ?? {}) as { schema?: unknown; version?: unknown };
  if (schema === RECEIPT_SCHEMA && typeof version === 'number' && version !== RECEIPT_VERSION)
    throw new ReceiptFormatError(
      `${source}: receipt version ${version}, this perimeter reads version ${RECEIPT_VERSION}`,
    );
  const parsed = receiptSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ReceiptFormatError(`${source}: not a Perimeter receipt: ${problems.slice(0, 5).join('; ')}`);
  }
  return parsed.data;
}
