import { conversationProblems } from './conversation/rules.js';
import { credentialFileRule } from './credentials.js';
import { branchGlobProblem, compileGlobList, globProblem } from './glob.js';
import { pathProblem } from './path.js';
import { loginProblem } from './pull-requests/rules.js';
import { DEFAULT_CONFIG_FILE, isOptionalFamily, protectedRule } from './protected.js';
import { perimeterNameProblem, type PerimeterSpec } from './spec.js';
import type { ToolName } from './tools.js';
import { isToolName } from './tools.js';

/** `rule` says what decided, e.g. 'read glob "src/**"', 'no read glob matches', 'protected: .github/**'. */
export interface Decision {
  allowed: boolean;
  rule: string;
  /** set when the write is allowed only to be sent to review (withReview, src/policy/review.ts) */
  review?: true;
}

export interface Perimeter {
  readonly name: string;
  readonly spec: PerimeterSpec;
  readonly tools: ReadonlySet<ToolName>;
  /** Validates first; an invalid path is never readable. Credential files need `allow-credential-files`. */
  canRead(path: string): Decision;
  /** Validates first; a write glob must match and the path must not be protected (unless `allow-protected` matches). */
  canWrite(path: string): Decision;
  /**
   * Whether a change to a path this perimeter may not write (canWrite refuses it) is sent to review instead
   * of refused: a `review` glob matches and no denial does. A writable path is never "for review".
   */
  canReview(path: string): Decision;
  allowsBranch(branch: string): boolean;
  /** The `allow-secrets-in` glob matching this path (read as git reads globs), or null. */
  allowsSecretsIn(path: string): string | null;
}

/** A PerimeterSpec that cannot be compiled exactly (parseConfig never produces one). */
export class PerimeterSpecError extends Error {
  readonly code = 'invalid-perimeter';
  constructor(
    readonly perimeter: string,
    readonly problems: string[],
  ) {
    super(`perimeter ${JSON.stringify(perimeter)} is invalid: ${problems.join('; ')}`);
    this.name = 'PerimeterSpecError';
  }
}

const GLOB_KEYS = [
  ['read', 'read'],
  ['write', 'write'],
  ['allowProtected', 'allow-protected'],
  ['allowCredentialFiles', 'allow-credential-files'],
  ['allowSecretsIn', 'allow-secrets-in'],
] as const;

const OPTIONAL_GLOB_KEYS = [
  ['review', 'review'],
  ['deny', 'deny'],
  ['ownerDeny', 'top-level deny'],
] as const;

function specProblems(spec: PerimeterSpec): string[] {
  const problems: string[] = [];
  const nameProblem = perimeterNameProblem(spec.name);
  if (nameProblem) problems.push(nameProblem);
  for (const [field, key] of GLOB_KEYS) {
    for (const glob of spec[field]) {
      const problem = globProblem(glob);
      if (problem) problems.push(`${key}: ${JSON.stringify(glob)}: ${problem}`);
    }
  }
  for (const [field, key] of OPTIONAL_GLOB_KEYS) {
    for (const glob of spec[field] ?? []) {
      const problem = globProblem(glob);
      if (problem) problems.push(`${key}: ${JSON.stringify(glob)}: ${problem}`);
    }
  }
  for (const family of spec.protect ?? [])
    if (!isOptionalFamily(family)) problems.push(`protect: unknown family ${JSON.stringify(family)}`);
  for (const glob of spec.branches ?? []) {
    const problem = branchGlobProblem(glob);
    if (problem) problems.push(`branches: ${JSON.stringify(glob)}: ${problem}`);
  }
  for (const glob of spec.pullRequests?.branches ?? []) {
    const problem = branchGlobProblem(glob);
    if (problem) problems.push(`pull-requests.branches: ${JSON.stringify(glob)}: ${problem}`);
  }
  for (const login of spec.pullRequests?.authors ?? []) {
    const problem = loginProblem(login);
    if (problem) problems.push(`pull-requests.authors: ${JSON.stringify(login)}: ${problem}`);
  }
  for (const tool of spec.tools)
    if (!isToolName(tool)) problems.push(`tools: unknown tool ${JSON.stringify(tool)}`);
  if (spec.conversation !== undefined) problems.push(...conversationProblems(spec.conversation));
  return problems;
}

/**
 * A decision for a path in each Unicode normal form it can be spelled in: git stores names as bytes, so `café`
 * composed (NFC) and decomposed (NFD) are two paths, and a checkout on macOS (or any tool that normalises)
 * lands both on one file. A grant (a read or write glob) in either form grants; a refusal in either form (a
 * denial, the protected set, a credential file, an invalid spelling) refuses, so no spelling escapes a rule
 * written in the other.
 */
function inEveryForm(decide: (path: string) => Decision): (path: string) => Decision {
  return (path) => {
    if (typeof path !== 'string' || ASCII.test(path)) return decide(path);
    const forms = [...new Set([path, path.normalize('NFC'), path.normalize('NFD')])];
    const decisions = forms.map((form) => ({ form, decision: decide(form) }));
    const refused = decisions.find(({ decision }) => !decision.allowed && !NO_GRANT.has(decision.rule));
    if (refused !== undefined)
      return refused.form === path
        ? refused.decision
        : {
            allowed: false,
            rule: `${refused.decision.rule} (spelled in another Unicode normal form)`,
          };
    return decisions.find(({ decision }) => decision.allowed)?.decision ?? decisions[0]!.decision;
  };
}

const NO_WRITE_GLOB = 'no write glob matches';
const NO_READ_GLOB = 'no read glob matches';
/** Refusals that only say no grant matched this spelling: another spelling's grant may still hold. */
const NO_GRANT = new Set([NO_WRITE_GLOB, NO_READ_GLOB]);
const ASCII = /^[\x20-\x7e]*$/;

/**
 * Compiles a perimeter's globs once. Throws when the spec is invalid (a spec from parseConfig never is):
 * a perimeter that cannot be compiled exactly is not served at all.
 */
export function compilePerimeter(spec: PerimeterSpec, configFile: string = DEFAULT_CONFIG_FILE): Perimeter {
  const problems = specProblems(spec);
  if (problems.length > 0) {
    throw new PerimeterSpecError(spec.name, problems);
  }
  const read = compileGlobList(spec.read);
  const write = compileGlobList(spec.write);
  const allowProtected = compileGlobList(spec.allowProtected);
  const allowCredentialFiles = compileGlobList(spec.allowCredentialFiles);
  const allowSecretsIn = compileGlobList(spec.allowSecretsIn);
  const review = compileGlobList(spec.review ?? []);
  const deny = compileGlobList(spec.deny ?? []);
  const ownerDeny = compileGlobList(spec.ownerDeny ?? []);
  const families = spec.protect ?? [];
  /** Denials win over every grant, for reads and writes alike. */
  const denied = (path: string): string | null => {
    const own = deny.find(path);
    if (own !== null) return `deny glob ${JSON.stringify(own)}`;
    const owner = ownerDeny.find(path);
    return owner === null ? null : `top-level deny glob ${JSON.stringify(owner)}`;
  };
  const branches = spec.branches === null ? null : compileGlobList(spec.branches);
  const tools: ReadonlySet<ToolName> = new Set(spec.tools);
  // canRead and canWrite usually see the same path back to back: remember the last valid one.
  let lastValid: string | null = null;
  const invalidRule = (path: string): string | null => {
    if (path === lastValid) return null;
    const problem = pathProblem(path);
    if (problem !== null) return `invalid path: ${problem}`;
    lastValid = path;
    return null;
  };
  const quoted = new Map([...spec.read, ...spec.write].map((glob) => [glob, JSON.stringify(glob)]));
  const readRule = new Map(spec.read.map((glob) => [glob, `read glob ${quoted.get(glob)}`]));
  const writeRule = new Map(spec.write.map((glob) => [glob, `write glob ${quoted.get(glob)}`]));

  const canWriteAsSpelled = (path: string): Decision => {
    const invalid = invalidRule(path);
    if (invalid !== null) return { allowed: false, rule: invalid };
    const denial = denied(path);
    if (denial !== null) return { allowed: false, rule: denial };
    const glob = write.find(path);
    if (glob === null) return { allowed: false, rule: NO_WRITE_GLOB };
    const grants = [writeRule.get(glob)!];
    const protectedBy = protectedRule(path, configFile, families);
    if (protectedBy !== null) {
      const allowedBy = allowProtected.find(path);
      if (allowedBy === null) return { allowed: false, rule: `protected: ${protectedBy}` };
      grants.push(`allow-protected ${JSON.stringify(allowedBy)}`);
    }
    // A credential file is refused on write as it is hidden on read: a `.env` or `.pypirc` an agent writes
    // is read by the next tool or person that runs in the checkout (a registry, a token, a proxy).
    const credential = credentialFileRule(path);
    if (credential !== null) {
      const allowedBy = allowCredentialFiles.find(path);
      if (allowedBy === null) return { allowed: false, rule: `credential file: ${credential}` };
      grants.push(`allow-credential-files ${JSON.stringify(allowedBy)}`);
    }
    return { allowed: true, rule: grants.join(', ') };
  };

  const canReadAsSpelled = (path: string): Decision => {
    const invalid = invalidRule(path);
    if (invalid !== null) return { allowed: false, rule: invalid };
    const denial = denied(path);
    if (denial !== null) return { allowed: false, rule: denial };
    const glob = read.find(path);
    if (glob === null) return { allowed: false, rule: NO_READ_GLOB };
    const credential = credentialFileRule(path);
    if (credential !== null) {
      const allowedBy = allowCredentialFiles.find(path);
      if (allowedBy === null) return { allowed: false, rule: `credential file: ${credential}` };
      return {
        allowed: true,
        rule: `read glob ${JSON.stringify(glob)}, allow-credential-files ${JSON.stringify(allowedBy)}`,
      };
    }
    return { allowed: true, rule: readRule.get(glob)! };
  };
  const canWrite = inEveryForm(canWriteAsSpelled);

  return {
    name: spec.name,
    spec,
    tools,
    canRead: inEveryForm(canReadAsSpelled),
    canWrite,
    canReview(path: string): Decision {
      const write = canWrite(path);
      if (write.allowed) return { allowed: false, rule: `writable, no review needed (${write.rule})` };
      // invalid paths and denials are refused whatever review says
      if (invalidRule(path) !== null || denied(path) !== null) return write;
      const glob = review.find(path);
      if (glob === null) return { allowed: false, rule: `${write.rule}; no review glob matches` };
      // a protected file says so, whether or not a write glob matches: that is what the reviewer must know
      const protectedBy = protectedRule(path, configFile, families);
      const why = protectedBy === null ? write.rule : `protected: ${protectedBy}`;
      return { allowed: true, rule: `review glob ${JSON.stringify(glob)} (${why})` };
    },
    allowsBranch(branch: string): boolean {
      if (typeof branch !== 'string' || branch === '') return false;
      return branches === null || branches.find(branch) !== null;
    },
    allowsSecretsIn(path: string): string | null {
      return pathProblem(path) === null ? allowSecretsIn.find(path) : null;
    },
  };
}
