/**
 * push_files is no oracle for what the perimeter cannot see, as a property: for random trees and
 * perimeters, take something hidden (a file it cannot read, or a folder holding nothing it can read) and
 * the same tree without it; pushes at or below that path answer the same (commit ids aside), make the same
 * upstream requests in the same order, and leave the same readable tree. Over the memory upstream (the Git
 * Data landing); the stand-in end to end is test/gateway/push-oracle.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Pusher, type PushRequest } from '../../src/gateway/push/push.js';
import { RepoView } from '../../src/gateway/reads/repo-view.js';
import type { CallNotes } from '../../src/gateway/tool-answer.js';
import { compilePerimeter, parseConfig, type Perimeter } from '../../src/policy/index.js';
import { NO_FILTER } from '../../src/safety/answer-filter.js';
import { createMemoryUpstream } from './support/memory-upstream.js';

const SEGMENTS = ['src', 'vault', 'a', 'b', 'notes.md', '.env'];
const READS = [['src/**'], ['src/**', '**/*.md'], ['**'], []];
const WRITES = [['**'], ['src/**', 'vault/**'], ['vault/**', 'a/**']];

function perimeterOf(read: string[], write: string[]): Perimeter {
  const yaml = `version: 1
perimeters:
  p:
    read: ${JSON.stringify(read)}
    write: ${JSON.stringify(write)}
`;
  return compilePerimeter(parseConfig(yaml).perimeters[0]!);
}

/** A tree from random paths: a path that would be both a file and a folder is left out. */
function treeOf(paths: string[][]): Record<string, string> {
  const files: Record<string, string> = {};
  const dirs = new Set<string>();
  for (const segments of paths) {
    const path = segments.join('/');
    const parents = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/'));
    if (dirs.has(path) || path in files || parents.some((p) => p in files)) continue;
    files[path] = `${path}\n`;
    parents.forEach((p) => dirs.add(p));
  }
  return files;
}

const under = (path: string, at: string): boolean => path === at || path.startsWith(`${at}/`);

/** What the perimeter sees of a tree: its readable files and their content. */
function visible(perimeter: Perimeter, files: Record<string, string>): string {
  return JSON.stringify(
    Object.entries(files)
      .filter(([path]) => perimeter.canRead(path).allowed)
      .sort(),
  );
}

/** Whether nothing at or below `at` is readable, and something is there. */
function hiddenIn(perimeter: Perimeter, files: Record<string, string>, at: string): boolean {
  const below = Object.keys(files).filter((path) => under(path, at));
  return below.length > 0 && below.every((path) => !perimeter.canRead(path).allowed);
}

async function run(
  perimeter: Perimeter,
  files: Record<string, string>,
  requests: PushRequest[],
): Promise<{ answers: string[]; log: string[]; after: string }> {
  const upstream = await createMemoryUpstream(files);
  const pusher = new Pusher(new RepoView(upstream, 'main'), NO_FILTER);
  const known = new Map<string, string>();
  const placeholder = (sha: string): string => {
    if (!known.has(sha)) known.set(sha, `<commit ${known.size}>`);
    return known.get(sha)!;
  };
  placeholder(await upstream.getBranchHead('main'));
  upstream.log.length = 0;
  const answers: string[] = [];
  for (const request of requests) {
    const notes: CallNotes = { paths: [] };
    let answer: string;
    try {
      answer = JSON.stringify(await pusher.push(perimeter, request, notes));
    } catch (error) {
      answer = `refused: ${(error as Error).message}`;
    }
    answers.push(answer.replace(/\b[0-9a-f]{40}\b/g, placeholder));
  }
  const log = [...upstream.log];
  const head = await upstream.getBranchHead('main');
  const { tree } = await upstream.getCommit(head);
  const after: Record<string, string> = {};
  for (const entry of (await upstream.getTreeRecursive(tree)).entries)
    if (entry.type === 'blob')
      after[entry.path] = Buffer.from(await upstream.getBlob(entry.sha)).toString('utf8');
  return { answers, log, after: visible(perimeter, after) };
}

describe('push_files at or below a hidden path', () => {
  it('answers, asks upstream and leaves what is readable as for a missing path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...READS),
        fc.constantFrom(...WRITES),
        fc.array(fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.nat(),
        fc.array(
          fc.record({
            below: fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 2 }),
            delete: fc.boolean(),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        async (read, write, paths, pick, writes) => {
          const perimeter = perimeterOf(read, write);
          const files = treeOf(paths);
          // every file and folder of the tree holding nothing readable
          const candidates = [
            ...new Set(
              Object.keys(files).flatMap((path) =>
                path.split('/').map((_, i, all) => all.slice(0, i + 1).join('/')),
              ),
            ),
          ].filter((at) => hiddenIn(perimeter, files, at));
          fc.pre(candidates.length > 0);
          const at = candidates[pick % candidates.length]!;
          const without = Object.fromEntries(Object.entries(files).filter(([path]) => !under(path, at)));
          expect(visible(perimeter, without)).toBe(visible(perimeter, files));
          // What stands in the way and may not be written cannot be replaced: that push is refused, and git
          // cannot hold both, so it alone tells (SECURITY.md says so). Left out here, pinned below.
          const obstacles = Object.keys(files).filter((path) => under(path, at) || under(at, path));
          fc.pre(obstacles.every((path) => perimeter.canWrite(path).allowed));
          const requests: PushRequest[] = writes.map(({ below, delete: del }) => {
            const path = [at, ...below].join('/');
            return del
              ? { message: 'm', files: [], deletions: [path] }
              : { message: 'm', files: [{ path, content: 'probe\n' }] };
          });
          const hidden = await run(perimeter, files, requests);
          const missing = await run(perimeter, without, requests);
          expect(hidden.answers).toEqual(missing.answers);
          expect(hidden.log).toEqual(missing.log);
          expect(hidden.after).toBe(missing.after);
        },
      ),
      {
        numRuns: 150,
        // CI's run found it: with the stand-in's own tree hashes, a tree the gateway built after a push was
        // never proven, and an empty tree seen before cost one listing less
        examples: [
          [
            ['**'],
            ['**'],
            [['src', '.env'], ['src']],
            0,
            [
              { below: [], delete: false },
              { below: [], delete: true },
              { below: [], delete: false },
            ],
          ],
        ],
      },
    );
  });

  describe('when what stands in the way may not be written', () => {
    it('refuses the push and writes nothing', async () => {
      const perimeter = perimeterOf(['src/**'], ['vault/**']);
      const { answers, log } = await run(perimeter, { vault: 'v\n', 'src/a': 'a\n' }, [
        { message: 'm', files: [{ path: 'vault/x', content: 'x\n' }] },
      ]);
      expect(answers).toEqual([
        'refused: push refused, nothing was written:\n- vault/x: cannot be written, something this endpoint may not write is in the way',
      ]);
      expect(log.filter((name) => /^create|^update/.test(name))).toEqual([]);
    });
  });
});
