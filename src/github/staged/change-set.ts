import { z } from 'zod';
import { blobSha, commitSha, listingTreeSha } from '../git-objects.js';
import { MAX_CONVERSATION_REQUESTS, type StagedChangeSet } from './staged-upstream.js';

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'expected a 40-character hex SHA');
const signature = z.object({ name: z.string(), email: z.string(), date: z.string() });
const entry = z.object({
  path: z.string().min(1),
  mode: z.enum(['100644', '100755', '120000', '040000', '160000']),
  type: z.enum(['blob', 'tree', 'commit']),
  sha,
  size: z.number().int().nonnegative().optional(),
});
const schema = z.object({
  version: z.literal(1),
  branch: z.string().min(1),
  base: sha,
  commits: z
    .array(
      z.object({
        sha,
        tree: sha,
        parents: z.array(sha).length(1),
        message: z.string(),
        author: signature,
        committer: signature,
      }),
    )
    .min(1),
  trees: z.record(sha, z.array(entry)),
  blobs: z.record(sha, z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64')),
  conversation: z
    .array(
      z.discriminatedUnion('kind', [
        z.strictObject({
          kind: z.literal('pull_request'),
          perimeter: z.string().min(1).max(63),
          title: z.string().min(1).max(256),
          body: z.string().max(60_000),
          base: z.string().min(1).max(255),
          draft: z.boolean(),
          labels: z.array(z.string().min(1).max(50)).max(20),
        }),
        z.strictObject({
          kind: z.literal('comment'),
          perimeter: z.string().min(1).max(63),
          thread: z.enum(['pull_request', 'trigger']),
          body: z.string().min(1).max(60_000),
        }),
      ]),
    )
    .max(MAX_CONVERSATION_REQUESTS)
    .optional(),
});

/** A staged change set that is not what it claims to be; `problems` say where. */
export class ChangeSetError extends Error {
  override name = 'ChangeSetError';
  constructor(readonly problems: string[]) {
    super(`the staged change set cannot be trusted: ${problems.slice(0, 5).join('; ')}`);
  }
}

/**
 * Reads a change set from an untrusted source: it must fit the schema, and every object must hash to the
 * SHA it is filed under, so each commit is exactly what its SHA names; the commits must form one chain on
 * `base`. Throws ChangeSetError naming what is wrong; nothing is partly accepted.
 */
export function readChangeSet(value: unknown): StagedChangeSet {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new ChangeSetError(
      parsed.error.issues.slice(0, 10).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  const set = parsed.data;
  const problems: string[] = [];
  for (const [key, base64] of Object.entries(set.blobs)) {
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.toString('base64') !== base64) problems.push(`blob ${key}: not canonical base64`);
    else if (blobSha(bytes) !== key) problems.push(`blob ${key}: its content hashes to ${blobSha(bytes)}`);
  }
  for (const [key, entries] of Object.entries(set.trees)) {
    if (listingTreeSha(entries) !== key)
      problems.push(`tree ${key}: its entries hash to ${listingTreeSha(entries)}`);
    const names = new Set<string>();
    for (const e of entries) {
      if (e.path.includes('/') || e.path === '.' || e.path === '..' || names.has(e.path))
        problems.push(`tree ${key}: entry ${JSON.stringify(e.path)} is not a valid or unique name`);
      names.add(e.path);
    }
  }
  let parent = set.base;
  for (const [i, commit] of set.commits.entries()) {
    const { sha: claimed, ...body } = commit;
    if (commitSha(body) !== claimed)
      problems.push(`commit ${i + 1} (${claimed}): its content hashes otherwise`);
    if (commit.parents[0] !== parent)
      problems.push(`commit ${i + 1} (${claimed}): its parent is ${commit.parents[0]}, not ${parent}`);
    if (!(commit.tree in set.trees))
      problems.push(`commit ${i + 1} (${claimed}): its tree is not in the set`);
    parent = claimed;
  }
  if (problems.length > 0) throw new ChangeSetError(problems);
  return set;
}
