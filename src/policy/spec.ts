import type { ConversationRule } from './conversation/rules.js';
import { DEFAULT_TOOLS, type ToolName } from './tools.js';
import type { TrustRule } from './establish/trust.js';

export interface Limits {
  filesPerPush: number;
  bytesPerFile: number;
  bytesPerPush: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  filesPerPush: 100,
  bytesPerFile: 1_048_576,
  bytesPerPush: 10_485_760,
});

/** GitHub refuses blobs over 100 MB; a larger per-file limit could never be honoured. */
export const MAX_BYTES_PER_FILE = 100 * 1024 * 1024;

/** yaml `pull-requests`: the pull requests a perimeter judges; at least one list is non-empty. */
export interface PullRequestRule {
  /** logins of pull request authors, as GitHub reports `user.login` (e.g. "Copilot"); compared without case */
  authors: string[];
  /** globs over head branch names (e.g. "copilot/**"), read as `branches` globs are */
  branches: string[];
}

export interface PerimeterSpec {
  name: string;
  description?: string;
  /** Default: every tool whose catalogue entry says defaultGrant (tools.ts): all but the conversation ones. */
  tools: ToolName[];
  read: string[];
  write: string[];
  /** null = any branch. */
  branches: string[] | null;
  /**
   * yaml `review`: globs of paths this perimeter may not write on its own (outside `write`, or protected)
   * whose changes are sent to review, a draft pull request a person approves, instead of being refused.
   * Takes effect with staged writes only (`writes: stage`); absent: none.
   */
  review?: string[];
  /** yaml `allow-protected`: globs of protected paths this perimeter may write. */
  allowProtected: string[];
  /** yaml `limits: { files-per-push, bytes-per-file, bytes-per-push }`. */
  limits: Limits;
  /** yaml `allow-credential-files`: globs of credential files this perimeter may read. */
  allowCredentialFiles: string[];
  /** yaml `allow-secrets-in`: globs where pushed content may carry credentials. */
  allowSecretsIn: string[];
  /** yaml `deny`: globs this perimeter may neither read nor write, whatever else grants them. */
  deny?: string[];
  /** top-level `deny`: globs no perimeter may read or write. */
  ownerDeny?: string[];
  /** optional protected families switched on, top-level and per-perimeter `protect` together. */
  protect?: string[];
  /** yaml `untrusted-triggers: true`: still exposed when the trust rule does not trust the trigger. */
  untrustedTriggers?: boolean;
  /**
   * yaml `instructions`: where agent instruction files (AGENTS.md, CLAUDE.md, ...) are read from: the
   * trusted config ref (default) or the bound branch.
   */
  instructions?: 'config-ref' | 'branch';
  /** yaml `pull-requests`: the pull requests (by author and/or head branch) the verify job judges by this perimeter */
  pullRequests?: PullRequestRule;
  /** yaml `conversation`: what the pull request and comment tools may do; absent: CONVERSATION_DEFAULTS */
  conversation?: ConversationRule;
}

/**
 * What a perimeter is given for every key perimeters.yml leaves out: every tool, nothing to read or write,
 * any branch, the default limits, no exceptions.
 */
export function defaultPerimeterSpec(name: string): PerimeterSpec {
  return {
    name,
    tools: [...DEFAULT_TOOLS],
    read: [],
    write: [],
    branches: null,
    allowProtected: [],
    limits: { ...DEFAULT_LIMITS },
    allowCredentialFiles: [],
    allowSecretsIn: [],
  };
}

export interface Config {
  version: 1;
  file: string;
  perimeters: PerimeterSpec[];
  /** top-level `trust`; null or absent: every trigger is treated as today (all selected perimeters) */
  trust?: TrustRule | null;
}

/** Perimeter names end up in URLs, status contexts and environment variable names. */
const PERIMETER_NAME_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const PERIMETER_NAME_MAX_LENGTH = 63;

export function perimeterNameProblem(name: string): string | null {
  if (name.length > PERIMETER_NAME_MAX_LENGTH) {
    return `name is ${name.length} characters long; at most ${PERIMETER_NAME_MAX_LENGTH} allowed`;
  }
  if (!PERIMETER_NAME_PATTERN.test(name)) {
    return `invalid name ${JSON.stringify(name)}: expected lowercase letters, digits and single hyphens, starting with a letter (e.g. "test-author")`;
  }
  return null;
}
