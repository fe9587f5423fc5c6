import { instructionFileRule } from '../../policy/index.js';
import type { TreeEntry } from '../../github/index.js';
import type { Perimeter } from '../../policy/index.js';
import type { RepoView } from './repo-view.js';
import { parentOf, TreeIndex } from './tree-index.js';

/** What get_file says of an instruction file it served from the trusted ref. */
export function trustedNote(ref: string): string {
  return `agent instruction file: served from the trusted ref ${JSON.stringify(ref)}, not the bound branch`;
}

/**
 * Agent instruction files (AGENTS.md, CLAUDE.md, .cursor/rules/...) as the trusted config ref holds
 * them: whoever could push to the bound branch before the job must not steer the agent through them.
 * Every read tool sees the same list: the branch's tree with its instruction files taken out and the
 * trusted ref's put in (`overlay`), so get_tree lists what get_file serves, with the same SHA and size.
 * The trusted ref is read once, at first use, and held for the gateway's life. A perimeter with
 * `instructions: branch` reads the branch's copies like any other file.
 */
export class TrustedInstructions {
  private trusted: Promise<TreeEntry[]> | null = null;
  private last: { key: string; index: TreeIndex } | null = null;

  constructor(
    private readonly view: RepoView,
    /** the ref perimeters.yml was read from */
    readonly ref: string,
  ) {}

  /** Whether `path` is answered from the trusted ref for this perimeter. */
  applies(perimeter: Perimeter, path: string): boolean {
    return perimeter.spec.instructions !== 'branch' && instructionFileRule(path) !== null;
  }

  /** The tree this perimeter reads: `branch` with the instruction files of the trusted ref in place of its own. */
  async overlay(perimeter: Perimeter, branch: TreeIndex): Promise<TreeIndex> {
    if (perimeter.spec.instructions === 'branch') return branch;
    const trusted = await this.instructionFiles();
    const key = branch.sha;
    if (this.last?.key === key) return this.last.index;
    const entries = new Map<string, TreeEntry>();
    for (const entry of branch.entries())
      if (entry.type === 'tree' || instructionFileRule(entry.path) === null) entries.set(entry.path, entry);
    for (const entry of trusted) {
      entries.set(entry.path, entry);
      for (let dir = parentOf(entry.path); dir !== '' && !entries.has(dir); dir = parentOf(dir))
        entries.set(dir, { path: dir, mode: '040000', type: 'tree', sha: '' });
    }
    // the SHA names the branch's tree for the caches that key on it; what is in it differs by design
    const index = new TreeIndex(branch.sha, [...entries.values()]);
    this.last = { key, index };
    return index;
  }

  private instructionFiles(): Promise<TreeEntry[]> {
    if (!this.trusted) {
      this.trusted = (async () => {
        const [commit] = await this.view.upstream.listCommits({ sha: this.ref, perPage: 1 });
        if (!commit) return [];
        const index = await this.view.index(commit.tree);
        return [...index.entries()].filter((e) => e.type !== 'tree' && instructionFileRule(e.path) !== null);
      })();
      this.trusted.catch(() => (this.trusted = null));
    }
    return this.trusted;
  }
}

/** The head's tree as `perimeter` reads it: with the trusted instruction files when the gateway has a ref. */
export async function readableTree(
  view: RepoView,
  instructions: TrustedInstructions | null,
  perimeter: Perimeter,
): Promise<TreeIndex> {
  const { index } = await view.snapshot();
  return instructions ? instructions.overlay(perimeter, index) : index;
}

/** A file answer from the trusted ref says so in its note. */
export function noteTrusted<T extends { note?: string | undefined }>(
  answer: T,
  instructions: TrustedInstructions | null,
  perimeter: Perimeter,
  path: string,
): T {
  if (!instructions?.applies(perimeter, path)) return answer;
  const note = trustedNote(instructions.ref);
  return { ...answer, note: answer.note === undefined ? note : `${note}; ${answer.note}` };
}
