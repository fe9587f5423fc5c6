import { GraphQLError } from 'graphql';
import { writeCommit } from '../git/commit-writer.js';
import { objectValue } from './graphql-values.js';
import { isSafeRefName, type FakeRepo } from '../repo.js';
import type { ServerState } from '../stats.js';
import { buildTree, validPath, type TreeWrite } from '../git/tree-builder.js';

/**
 * The `createCommitOnBranch` mutation over the bare repository, as GitHub documents it
 * (https://docs.github.com/en/graphql/reference/mutations#createcommitonbranch and the input objects
 * CommittableBranch, FileChanges, FileAddition): the branch named by `repositoryNameWithOwner` and
 * `branchName`; the commit lands only while the branch is at `expectedHeadOid` (else STALE_DATA, worded as
 * GitHub words it); contents are strict RFC 4648 base64; every path unique across additions and deletions;
 * a deletion must name an existing file; every file is written with mode 100644; the commit is authored by the
 * token's login, committed by web-flow and signed; the ref change is recorded with the token's login as actor.
 * Stricter than GitHub where GitHub is not documented: a path whose parent is a file, or that is a
 * directory, is refused rather than replaced, and a headline must be one line.
 */

type Value = Record<string, unknown>;

const fail = (type: string, message: string): never => {
  throw new GraphQLError(message, { extensions: { type } });
};

/** GitHub's wording when a Base64String or another input does not fit. */
const invalidInput = (field: string, why: string): never =>
  fail(
    'INVALID_INPUT',
    `Variable $input of type CreateCommitOnBranchInput! was provided invalid value for ${field} (${why})`,
  );

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const OID = /^[0-9a-f]{40}$/;

interface Change {
  path: string;
  bytes: Buffer | null;
}

function changesOf(input: Value): Change[] {
  const fileChanges = (input.fileChanges ?? {}) as Value;
  const additions = (fileChanges.additions ?? []) as Value[];
  const deletions = (fileChanges.deletions ?? []) as Value[];
  const changes: Change[] = [];
  additions.forEach((a, i) => {
    if (typeof a.contents !== 'string' || !BASE64.test(a.contents))
      invalidInput(`fileChanges.additions.${i}.contents`, 'Invalid base64 encoding');
    changes.push({ path: String(a.path), bytes: Buffer.from(a.contents as string, 'base64') });
  });
  for (const d of deletions) changes.push({ path: String(d.path), bytes: null });
  const seen = new Set<string>();
  for (const { path } of changes) {
    if (!validPath(path)) fail('UNPROCESSABLE', `The path "${path}" is not a valid path in a git tree.`);
    if (seen.has(path)) invalidInput('fileChanges', `path "${path}" is given more than once`);
    seen.add(path);
  }
  return changes;
}

/** What is at `path` in the commit's tree: its ls-tree type, or null. */
async function typeAt(repo: FakeRepo, commit: string, path: string): Promise<string | null> {
  const slash = path.lastIndexOf('/');
  const dir = slash < 0 ? '' : path.slice(0, slash);
  const parent = await repo.readObject(`${commit}:${dir}`);
  if (!parent || parent.type !== 'tree') return null;
  return (await repo.lsTree(parent.sha, false)).find((e) => e.path === path.slice(slash + 1))?.type ?? null;
}

/** Refuses deletions of what is not a file, and additions that a file or a directory stands in the way of. */
async function checkShape(repo: FakeRepo, head: string, changes: Change[]): Promise<void> {
  const deleted = new Set(changes.filter((c) => c.bytes === null).map((c) => c.path));
  for (const { path, bytes } of changes) {
    const type = await typeAt(repo, head, path);
    if (bytes === null) {
      if (type !== 'blob')
        fail(
          'NOT_FOUND',
          `A path was requested for deletion which does not exist as of commit oid \`${head}\``,
        );
      continue;
    }
    if (type === 'tree' || type === 'commit')
      fail('UNPROCESSABLE', `"${path}" is a directory or a submodule.`);
    for (let dir = path; dir.includes('/');) {
      dir = dir.slice(0, dir.lastIndexOf('/'));
      const above = await typeAt(repo, head, dir);
      if (above !== null && above !== 'tree' && !deleted.has(dir))
        fail('UNPROCESSABLE', `"${dir}" is a file, so "${path}" cannot be written.`);
    }
  }
}

export async function createCommitOnBranch(state: ServerState, login: string, input: Value): Promise<Value> {
  const branch = (input.branch ?? {}) as Value;
  if (branch.id !== undefined && branch.id !== null)
    fail('NOT_FOUND', `Could not resolve to a node with the global id of '${String(branch.id)}'`);
  const nameWithOwner = branch.repositoryNameWithOwner;
  const branchName = branch.branchName;
  if (typeof nameWithOwner !== 'string' || typeof branchName !== 'string')
    invalidInput('branch', 'give repositoryNameWithOwner and branchName, or id');
  const repo = state.repos.get(String(nameWithOwner).toLowerCase());
  if (!repo) return fail('NOT_FOUND', `Could not resolve to a Repository with the name '${nameWithOwner}'.`);
  const name = String(branchName).replace(/^refs\/heads\//, '');
  const ref = `refs/heads/${name}`;
  if (name.startsWith('refs/') || !isSafeRefName(ref))
    fail('NOT_FOUND', `Could not resolve to a Ref "${name}".`);
  const expected = input.expectedHeadOid;
  if (typeof expected !== 'string' || !OID.test(expected))
    invalidInput('expectedHeadOid', 'not a valid git object id');
  const message = (input.message ?? {}) as Value;
  const headline = message.headline;
  if (typeof headline !== 'string' || headline.trim() === '' || headline.includes('\n'))
    invalidInput('message.headline', 'a headline is one line of text');
  const body = typeof message.body === 'string' && message.body !== '' ? message.body : null;
  const changes = changesOf(input);

  // another writer's push lands first when a test asked for one (the move-ref fault)
  await state.faults.moveRefsBefore(repo, ref);
  const head = await repo.refValue(ref);
  if (!head) fail('NOT_FOUND', `Could not resolve to a Ref "${name}".`);
  const stale = (): never =>
    fail(
      'STALE_DATA',
      `Expected branch to point to "${String(expected)}" but it did not.  Pull and try again.`,
    );
  if (head !== expected) stale();
  await checkShape(repo, head!, changes);

  const writes: TreeWrite[] = [];
  for (const change of changes) {
    if (change.bytes === null) writes.push({ path: change.path, mode: '100644', type: 'blob', sha: null });
    else
      writes.push({
        path: change.path,
        mode: '100644',
        type: 'blob',
        sha: await repo.hashObject('blob', change.bytes),
      });
  }
  const parent = await repo.readCommit(head!);
  const tree = await buildTree(repo, parent!.tree, writes);
  const sha = await writeCommit(repo, {
    tree,
    parents: [head!],
    message: body === null ? String(headline) : `${String(headline)}\n\n${body}`,
    actor: login,
  });
  // GITHUB_TOKEN has no `workflows` permission; the commit stays unreachable
  if (!state.canWriteWorkflows && (await repo.workflowChanges(sha)).length > 0)
    fail(
      'FORBIDDEN',
      `refusing to allow a GitHub App to create or update workflow \`${(await repo.workflowChanges(sha))[0]}\` without \`workflows\` permission`,
    );
  if (!(await repo.moveRef(ref, head, sha, login))) stale();
  const commit = await objectValue(repo, sha);
  return {
    clientMutationId: input.clientMutationId ?? null,
    commit,
    ref: { __typename: 'Ref', id: `REF_${repo.id}_${name}`, name, prefix: 'refs/heads/', target: commit },
  };
}
