import { gitText } from './git.js';
import type { FakeRepo } from '../repo.js';
import { htmlUrl, repoApi } from '../shapes.js';

const STATUS: Record<string, string> = {
  A: 'added',
  D: 'removed',
  M: 'modified',
  T: 'changed',
  R: 'renamed',
  C: 'copied',
};

/** Changed files between two commits (`from` null = a root commit), as GitHub's diff-entry list. */
export async function diffFiles(
  base: string,
  repo: FakeRepo,
  from: string | null,
  to: string,
  limit: number,
): Promise<{ files: Array<Record<string, unknown>>; additions: number; deletions: number }> {
  const args = from
    ? ['diff-tree', '-r', '-z', '-M', '--raw', '--numstat', from, to]
    : ['diff-tree', '-r', '-z', '-M', '--raw', '--numstat', '--root', to];
  const tokens = (await gitText(repo.dir, args)).split('\0');
  const raw: Array<{ status: string; oldSha: string; newSha: string; path: string; previous?: string }> = [];
  const counts: Array<{ add: number; del: number }> = [];
  let i = 0;
  if (!from && /^[0-9a-f]{40}$/.test(tokens[0] ?? '')) i++;
  while (i < tokens.length) {
    const token = tokens[i++]!;
    if (token === '') continue;
    if (token.startsWith(':')) {
      const [, , oldSha, newSha, status] = token.slice(1).split(' ');
      const letter = status!.charAt(0);
      if (letter === 'R' || letter === 'C') {
        const previous = tokens[i++]!;
        raw.push({ status: letter, oldSha: oldSha!, newSha: newSha!, path: tokens[i++]!, previous });
      } else {
        raw.push({ status: letter, oldSha: oldSha!, newSha: newSha!, path: tokens[i++]! });
      }
      continue;
    }
    const [add, del, path] = token.split('\t');
    if (path === '') i += 2;
    counts.push({ add: add === '-' ? 0 : Number(add), del: del === '-' ? 0 : Number(del) });
  }
  let additions = 0;
  let deletions = 0;
  const api = repoApi(base, repo);
  const files = raw.map((entry, n) => {
    const count = counts[n] ?? { add: 0, del: 0 };
    additions += count.add;
    deletions += count.del;
    const sha = entry.status === 'D' ? entry.oldSha : entry.newSha;
    const ref = entry.status === 'D' ? (from ?? to) : to;
    const encoded = entry.path.split('/').map(encodeURIComponent).join('/');
    const file: Record<string, unknown> = {
      sha,
      filename: entry.path,
      status: STATUS[entry.status] ?? 'modified',
      additions: count.add,
      deletions: count.del,
      changes: count.add + count.del,
      blob_url: `${htmlUrl(base, repo)}/blob/${ref}/${encoded}`,
      raw_url: `${htmlUrl(base, repo)}/raw/${ref}/${encoded}`,
      contents_url: `${api}/contents/${encoded}?ref=${ref}`,
    };
    if (entry.previous !== undefined) file.previous_filename = entry.previous;
    return file;
  });
  return { files: files.slice(0, limit), additions, deletions };
}
