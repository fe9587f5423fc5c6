import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, GitError, gitText, ZERO_SHA } from './git.js';
import { unprocessable } from '../http-util.js';
import type { FakeRepo } from '../repo.js';

/** One entry of a POST git/trees request. */
export type TreeWrite =
  | { path: string; mode: string; type: 'blob'; content: string }
  | { path: string; mode: string; type: 'blob' | 'tree' | 'commit'; sha: string | null };

export function validPath(path: string): boolean {
  if (path.startsWith('/') || path.endsWith('/') || path.includes('\0') || path.includes('\n')) return false;
  return path
    .split('/')
    .every((part) => part !== '' && part !== '.' && part !== '..' && part.toLowerCase() !== '.git');
}

/**
 * Builds a tree the way GitHub's POST git/trees does (entries applied in order on top of `baseTree`),
 * through a temporary git index: read-tree, update-index --index-info, write-tree.
 */
export async function buildTree(
  repo: FakeRepo,
  baseTree: string | null,
  writes: TreeWrite[],
): Promise<string> {
  for (const write of writes) {
    if (!validPath(write.path))
      throw unprocessable(`Invalid tree info: path ${JSON.stringify(write.path)} is not allowed`);
  }
  const scratch = await mkdtemp(join(tmpdir(), 'fake-github-tree-'));
  const env = { GIT_INDEX_FILE: join(scratch, `index-${randomBytes(4).toString('hex')}`) };
  try {
    await git(repo.dir, baseTree ? ['read-tree', baseTree] : ['read-tree', '--empty'], { env });
    const contentShas = await hashContents(repo, scratch, writes);
    let pending: string[] = [];
    const apply = async (): Promise<void> => {
      if (pending.length === 0) return;
      await git(repo.dir, ['update-index', '--add', '--replace', '--index-info'], {
        env,
        input: pending.join(''),
      });
      pending = [];
    };
    const removeUnder = async (paths: string[]): Promise<void> => {
      await apply();
      const listed = await gitText(
        repo.dir,
        ['ls-files', '-z', '--', ...paths.map((p) => `:(literal)${p}`)],
        { env },
      );
      for (const path of listed.split('\0').filter(Boolean)) pending.push(`0 ${ZERO_SHA}\t${path}\n`);
    };
    let i = 0;
    while (i < writes.length) {
      const write = writes[i]!;
      if ('sha' in write && write.sha === null) {
        const run: string[] = [];
        while (i < writes.length && 'sha' in writes[i]! && (writes[i] as { sha: string | null }).sha === null)
          run.push(writes[i++]!.path);
        await removeUnder(run);
        continue;
      }
      i++;
      if ('content' in write) {
        pending.push(`${write.mode} ${contentShas.get(write)!}\t${write.path}\n`);
        continue;
      }
      const sha = write.sha!;
      await checkObject(repo, sha, write.type, write.mode);
      if (write.type === 'tree') {
        await removeUnder([write.path]);
        const listed = await gitText(repo.dir, ['ls-tree', '-r', '-z', '--full-tree', sha]);
        for (const record of listed.split('\0').filter(Boolean)) {
          const tab = record.indexOf('\t');
          const [mode, , objectSha] = record.slice(0, tab).split(' ');
          pending.push(`${mode} ${objectSha}\t${write.path}/${record.slice(tab + 1)}\n`);
        }
      } else {
        pending.push(`${write.mode} ${sha}\t${write.path}\n`);
      }
    }
    await apply();
    return (await gitText(repo.dir, ['write-tree'], { env })).trim();
  } catch (error) {
    if (error instanceof GitError) throw unprocessable('Invalid tree info');
    throw error;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function checkObject(repo: FakeRepo, sha: string, type: string, mode: string): Promise<void> {
  if (type === 'commit') {
    if (mode !== '160000') throw unprocessable('Invalid tree info: a commit entry needs mode 160000');
    return;
  }
  const object = await repo.readObject(sha);
  if (!object) throw unprocessable(`Invalid tree info: object ${sha} does not exist`);
  if (object.type !== type)
    throw unprocessable(`Invalid tree info: ${sha} is a ${object.type}, not a ${type}`);
  if ((type === 'tree') !== (mode === '040000'))
    throw unprocessable(`Invalid tree info: mode ${mode} does not fit a ${type}`);
}

/** Writes every inline content as a blob with one `hash-object --stdin-paths`. */
async function hashContents(
  repo: FakeRepo,
  scratch: string,
  writes: TreeWrite[],
): Promise<Map<TreeWrite, string>> {
  const withContent = writes.filter((w): w is Extract<TreeWrite, { content: string }> => 'content' in w);
  const shas = new Map<TreeWrite, string>();
  if (withContent.length === 0) return shas;
  const files = await Promise.all(
    withContent.map(async (write, n) => {
      const file = join(scratch, `blob-${n}`);
      await writeFile(file, write.content, 'utf8');
      return file;
    }),
  );
  const out = await gitText(repo.dir, ['hash-object', '-w', '--no-filters', '--stdin-paths'], {
    input: files.join('\n') + '\n',
  });
  out
    .trim()
    .split('\n')
    .forEach((sha, n) => shas.set(withContent[n]!, sha));
  return shas;
}
