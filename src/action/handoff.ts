import { z } from 'zod';
import type { RefSnapshot } from '../verify/index.js';
import type { DirectPushes } from './inputs.js';

/**
 * What a later verify job needs from before the agents ran: main's `handoff` output, fixed when main ends
 * (later steps cannot change a step's outputs). It travels as the agent job's output, through the runner, so
 * the verify job checks it against GitHub before it relies on it (verify-step.ts).
 */
export const HANDOFF_FORMAT = 'perimeter-handoff';
export const HANDOFF_VERSION = 1;
/** GitHub caps a job's outputs at 1 MB together. */
export const MAX_HANDOFF_CHARS = 1_000_000;

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'expected a 40-character hex SHA');
const time = z.iso.datetime({ offset: true });

const handoffSchema = z.strictObject({
  format: z.literal(HANDOFF_FORMAT),
  version: z.literal(HANDOFF_VERSION),
  repository: z.string().regex(/^[A-Za-z0-9-_.]+\/[A-Za-z0-9-_.]+$/, 'expected "owner/name"'),
  run: z.strictObject({
    id: z.number().int().positive(),
    attempt: z.number().int().positive(),
    job: z.string(),
    runner: z.string(),
  }),
  branch: z.string().min(1),
  config: z.strictObject({ file: z.string().min(1), ref: z.string().min(1), sha }),
  perimeters: z.array(z.string().min(1)).min(1),
  directPushes: z.enum(['check', 'deny']),
  ignoreRefs: z.array(z.string()),
  /** the login GitHub records for the agent job's token (the pending status's creator) */
  identity: z.string().min(1).nullable(),
  /** on GitHub's clock, a margin before the start snapshot */
  startedAt: time,
  startRefs: z.record(z.string().startsWith('refs/'), sha),
  pending: z.strictObject({
    id: z.number().int().positive(),
    sha,
    context: z.string().min(1),
    description: z.string(),
    createdAt: time,
  }),
});

export type Handoff = z.infer<typeof handoffSchema>;

export class HandoffError extends Error {
  override name = 'HandoffError';
}

export interface HandoffFacts {
  repository: string;
  run: { id: number; attempt: number; job: string; runner: string };
  branch: string;
  config: { file: string; ref: string; sha: string };
  perimeters: string[];
  directPushes: DirectPushes;
  ignoreRefs: string[];
  identity: string | null;
  startedAt: string;
  startRefs: RefSnapshot;
  pending: Handoff['pending'];
}

export function renderHandoff(facts: HandoffFacts): string {
  const text = JSON.stringify({ format: HANDOFF_FORMAT, version: HANDOFF_VERSION, ...facts });
  if (text.length > MAX_HANDOFF_CHARS)
    throw new HandoffError(
      `the handoff is ${text.length} characters, over GitHub's 1 MB for a job's outputs (the repository has ${Object.keys(facts.startRefs).length} refs)`,
    );
  // the schema is the contract: main never hands over what the verify job would refuse
  return JSON.stringify(parseHandoff(text));
}

/** The handoff as the verify job got it; throws HandoffError saying what is wrong, never a stack trace. */
export function parseHandoff(text: string): Handoff {
  if (text.trim() === '')
    throw new HandoffError(
      'the handoff is empty: the agent job did not pass on the main step\'s "handoff" output (its main step failed or never ran, or the job\'s outputs do not name it); without a handoff, perimeter/verify judges pull requests only (on pull_request_target or pull_request)',
    );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new HandoffError(`the handoff is not JSON (${(error as Error).message})`);
  }
  const format = (data as { format?: unknown } | null)?.format;
  const version = (data as { version?: unknown } | null)?.version;
  if (format === HANDOFF_FORMAT && version !== HANDOFF_VERSION)
    throw new HandoffError(
      `the handoff has format version ${JSON.stringify(version)}; this verify action reads version ${HANDOFF_VERSION}: use the same release of perimeter and perimeter/verify`,
    );
  const parsed = handoffSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top)'}: ${issue.message}`);
  const more = parsed.error.issues.length - problems.length;
  throw new HandoffError(
    `the handoff is malformed: ${problems.join('; ')}${more > 0 ? `; ${more} more` : ''}`,
  );
}
