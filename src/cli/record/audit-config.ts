import { blobSha, UpstreamError, type RepoReads } from '../../github/index.js';
import type { Disagreement, ReceiptJson } from '../../verify/index.js';

/**
 * The perimeters file an audit judges with, read from GitHub, never taken from the record: the record is
 * written by the agent's job, and a record naming a permissive file (a blob, or a bare commit the job's token
 * made) would otherwise have the audit agree with whatever that file allows.
 */
export interface TrustedConfig {
  /** the text judged with */
  text: string;
  /** where GitHub had it, for messages */
  at: string;
  /** where the record's config differs from GitHub's */
  disagreements: Disagreement[];
  defaultBranch: string;
}

const SHA = /^[0-9a-f]{7,40}$/i;

/** The refs a config ref may mean, as git reads it. */
function refNames(ref: string): string[] {
  if (ref.startsWith('refs/')) return [ref];
  if (ref.startsWith('heads/') || ref.startsWith('tags/')) return [`refs/${ref}`];
  return [`refs/heads/${ref}`, `refs/tags/${ref}`];
}

/** isAncestor for commits that may not exist: an unknown commit is no ancestor. */
async function tryIsAncestor(upstream: RepoReads, ancestor: string, descendant: string): Promise<boolean> {
  try {
    return await upstream.isAncestor(ancestor, descendant);
  } catch (error) {
    if (error instanceof UpstreamError && (error.code === 'not_found' || error.code === 'invalid'))
      return false;
    throw error;
  }
}

type Vouched = { commit: string } | { problem: string };

/**
 * The commit GitHub vouches the record's config ref meant: a branch where the record says it stood at the
 * start of the job when that is still in the branch's history (else its head now), a tag as it is, a commit
 * SHA only when the default branch holds it. A commit that only the job's token made is on no branch.
 */
async function vouchedCommit(
  upstream: RepoReads,
  receipt: ReceiptJson,
  refs: Map<string, string>,
  defaultBranch: string,
): Promise<Vouched> {
  const ref = receipt.config.ref ?? defaultBranch;
  const name = refNames(ref).find((n) => refs.has(n));
  if (name === undefined && SHA.test(ref)) {
    const head = refs.get(`refs/heads/${defaultBranch}`);
    if (ref.length === 40 && head !== undefined && (await tryIsAncestor(upstream, ref, head)))
      return { commit: ref.toLowerCase() };
    return {
      problem:
        `the record's config ref ${JSON.stringify(ref)} is a commit that the default branch "${defaultBranch}" ` +
        'does not hold, not a branch or tag of the repository: anyone with the job token could have made it',
    };
  }
  if (name === undefined)
    return {
      problem: `the record's config ref ${JSON.stringify(ref)} is not a branch or tag of the repository`,
    };
  const now = refs.get(name)!;
  const start = receipt.refs.start[name];
  if (start === undefined || start === now) return { commit: now };
  if (name.startsWith('refs/heads/') && (await tryIsAncestor(upstream, start, now))) return { commit: start };
  return { commit: now };
}

async function tryFileAt(upstream: RepoReads, path: string, ref: string) {
  try {
    return await upstream.getFileAtRef(path, ref);
  } catch (error) {
    if (error instanceof UpstreamError && (error.code === 'not_found' || error.code === 'invalid'))
      return null;
    throw error;
  }
}

const short = (sha: string): string => sha.slice(0, 12);

/**
 * The record's perimeters file as GitHub has it at the record's config ref; where GitHub does not vouch for
 * that ref, or has no such file there, the default branch's file, with the reason named.
 */
export async function trustedConfig(upstream: RepoReads, receipt: ReceiptJson): Promise<TrustedConfig> {
  const { file, ref, blobSha: recorded } = receipt.config;
  const { defaultBranch } = await upstream.getRepository();
  const vouched = await vouchedCommit(upstream, receipt, await upstream.listRefs(), defaultBranch);
  const disagreements: Disagreement[] = [];
  if ('commit' in vouched) {
    const found = await tryFileAt(upstream, file, vouched.commit);
    const shown = `${JSON.stringify(ref ?? defaultBranch)} (${short(vouched.commit)})`;
    if (found !== null) {
      const sha = blobSha(Buffer.from(found.text, 'utf8'));
      if (found.sha !== recorded || sha !== recorded)
        disagreements.push({
          field: 'config',
          message: `the record says ${file} at ${shown} is blob ${short(recorded)}, GitHub has blob ${short(found.sha)} there`,
        });
      return { text: found.text, at: `${file} at ${shown}`, disagreements, defaultBranch };
    }
    disagreements.push({ field: 'config', message: `GitHub has no ${file} at ${shown}` });
  } else disagreements.push({ field: 'config', message: vouched.problem });
  const fallback = await tryFileAt(upstream, file, defaultBranch);
  if (fallback === null)
    throw new Error(
      `${disagreements[0]!.message}; and GitHub has no ${file} on the default branch "${defaultBranch}" to judge with`,
    );
  disagreements[0]!.message += `; judged with ${file} from the default branch "${defaultBranch}"`;
  return {
    text: fallback.text,
    at: `${file} at ${JSON.stringify(defaultBranch)}`,
    disagreements,
    defaultBranch,
  };
}
