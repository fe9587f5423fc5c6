/**
 * The floor: the fewest upstream requests that can give the session's answers, computed from the script and
 * the repository model (nothing measured). floor = distinct objects fetched + writes, REST and GraphQL
 * together, where
 * - ref checks: one per tool call; every answer is about the branch head as it is now. They go over git's
 *   smart HTTP (`ls-refs`, one POST each after one capability advertisement), charged to neither budget, and
 *   are counted with `git`, not in the floor;
 * - objects: none. The head's tree and history (list_commits, get_commit: commits, trees, what each commit
 *   changed, reachability) come from a partial copy of the branch's history fetched over git's smart HTTP,
 *   charged to neither budget: one fetch (two HTTP requests) at the first ref check and again at the first
 *   after each push (the copy is brought to every head it sees), counted with `git`, not in the floor;
 * - blobs: each distinct blob read that the client neither read nor wrote before comes over git's smart HTTP,
 *   charged to neither budget: one fetch (two HTTP requests) per call that needs any, counted apart (`git`);
 *   get_tree's sizes are the readable files it lists, read the same way (the copy has no blob);
 * - writes: 1 per push (GraphQL createCommitOnBranch: every file inline, text or binary, and the ref moved in
 *   the same request); no blob requests.
 * Charged: every request of the floor (no 304s: the ref checks that a conditional REST GET would have
 * made free are not REST requests any more).
 */
import type { Perimeter } from '../../src/policy/index.js';
import { blobSha } from '../../src/github/git-objects.js';
import type { RepoModel } from './repo-model.js';
import { headFiles, type Step } from './session-script.js';

export interface FloorStep {
  refChecks: number;
  /** ref checks answered 304 (not charged): none, the ref checks go over git */
  freeRefChecks: number;
  objects: number;
  writes: number;
  /** git smart HTTP requests: the ref check (and the advertisement before the first), and one fetch of two
   * per call that reads blobs not yet known */
  git: number;
}

export interface Floor {
  total: number;
  /** total minus the ref checks answered 304 */
  charged: number;
  refChecks: number;
  freeRefChecks: number;
  objects: number;
  writes: number;
  git: number;
  steps: FloorStep[];
}

interface KnownCommit {
  id: string;
  paths: string[];
}

export function computeFloor(model: RepoModel, steps: Step[], perimeter: Perimeter): Floor {
  const files = headFiles(model);
  const canRead = (path: string): boolean => perimeter.canRead(path).allowed;
  const history: KnownCommit[] = [
    { id: 'h0', paths: Object.keys(model.files) },
    ...model.history.map((c, i) => ({ id: `h${i + 1}`, paths: Object.keys(c.files) })),
  ].reverse();
  const blobs = new Set<string>();
  const withFiles = new Set<string>();
  const reachable = new Set<string>();
  let pushes = 0;
  let advertised = false;
  /** the push count the history copy was last brought up to (-1: no copy yet) */
  let copyAt = -1;

  const result: FloorStep[] = steps.map((step) => {
    const cost: FloorStep = { refChecks: 1, freeRefChecks: 0, objects: 0, writes: 0, git: 0 };
    // every ref check brings the history copy to the head: one fetch when a push moved it since
    if (copyAt !== pushes) cost.git += 2;
    copyAt = pushes;
    const read = (path: string): void => {
      const content = files.get(path);
      if (content === undefined || !canRead(path)) return;
      const sha = blobSha(Buffer.from(content));
      if (!blobs.has(sha)) cost.git = Math.max(cost.git, 2);
      blobs.add(sha);
    };
    switch (step.tool) {
      case 'get_tree': {
        // the sizes it shows: the readable files it lists (below the folder; direct ones unless recursive)
        const dir = step.args.path === undefined ? '' : `${step.args.path}/`;
        for (const path of files.keys())
          if (path.startsWith(dir) && (step.args.recursive || !path.slice(dir.length).includes('/')))
            read(path);
        break;
      }
      case 'get_file':
        read(step.args.path);
        break;
      case 'get_files':
        step.args.paths.forEach(read);
        break;
      case 'push_files': {
        cost.writes += 1;
        for (const f of step.args.files) {
          files.set(f.path, f.content);
          blobs.add(blobSha(Buffer.from(f.content)));
        }
        const id = `p${pushes++}`;
        history.unshift({ id, paths: step.args.files.map((f) => f.path) });
        withFiles.add(id);
        reachable.add(id);
        break;
      }
      case 'list_commits':
      case 'get_commit':
        // from the history copy, brought to the head above
        break;
    }
    if (cost.refChecks > 0) {
      cost.git += cost.refChecks + (advertised ? 0 : 1);
      advertised = true;
    }
    return cost;
  });
  const sum = (key: keyof FloorStep): number => result.reduce((n, s) => n + s[key], 0);
  const refChecks = sum('refChecks');
  const freeRefChecks = sum('freeRefChecks');
  const objects = sum('objects');
  const writes = sum('writes');
  const total = objects + writes;
  return {
    total,
    charged: total - freeRefChecks,
    refChecks,
    freeRefChecks,
    objects,
    writes,
    git: sum('git'),
    steps: result,
  };
}
