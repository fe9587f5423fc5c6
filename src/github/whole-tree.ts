import { treeSha, type HashedEntry } from './git-objects.js';
import { UpstreamError, type RepoReads, type TreeEntry } from './upstream.js';

/** Entries kept across the trees remembered whole (100,000 took 23 MB of heap); the oldest are forgotten beyond it. */
const KEEP_ENTRIES = 500_000;
/** rounds of batched reads for one prefetch (each goes GraphQL's LEVELS deeper) */
const MAX_ROUNDS = 8;

const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));
const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * Every entry below a tree (paths relative to it), in as few requests as GitHub allows. One recursive
 * listing when GitHub gives it whole. GitHub truncates a recursive listing at 100,000 entries or 7 MB
 * (https://docs.github.com/en/rest/git/trees#get-a-tree); then every directory the truncated listing did
 * hold whole is kept, each proven by recomputing its tree SHA from the entries listed for it, the tree
 * itself is listed plainly, and only its other children are listed again, recursively, going deeper only
 * where a child's own recursive listing is truncated too. Trees are addressed by SHA: what was listed whole
 * once is never listed again.
 */
export class WholeTrees {
  private readonly whole = new Map<string, Promise<TreeEntry[]>>();
  /** the same lists once they have arrived, for building larger trees from them without waiting */
  private readonly settled = new Map<string, TreeEntry[]>();
  private readonly sizes = new Map<string, number>();
  /** direct listings proven from a truncated recursive listing, by tree SHA */
  private readonly direct = new Map<string, TreeEntry[]>();
  private readonly truncatedTrees = new Set<string>();
  private kept = 0;

  constructor(private readonly upstream: RepoReads) {}

  /** Whether GitHub truncated the recursive listing of this tree (as far as this object has asked). */
  wasTruncated(sha: string): boolean {
    return this.truncatedTrees.has(sha);
  }

  /**
   * The whole tree. `plainFirst` skips the recursive listing of `sha` itself (not of its children): for a
   * tree expected to be truncated, such as the next root of a repository whose last root was.
   */
  list(sha: string, options: { plainFirst?: boolean } = {}): Promise<TreeEntry[]> {
    const known = this.whole.get(sha);
    if (known) return known;
    const pending = this.load(sha, options.plainFirst ?? false);
    this.whole.set(sha, pending);
    pending.then(
      (entries) => this.keep(sha, entries),
      () => this.whole.delete(sha),
    );
    return pending;
  }

  /** The tree when it is already known whole (listed, proven or built), without asking. */
  known(sha: string): Promise<TreeEntry[]> | undefined {
    return this.whole.get(sha);
  }

  /**
   * The tree from its one recursive listing when that is whole, or proves it whole; otherwise null (what
   * the listing proves of the tree's subdirectories is kept).
   */
  async once(sha: string): Promise<TreeEntry[] | null> {
    const known = this.whole.get(sha);
    if (known) return known;
    const listing = await this.upstream.getTreeRecursive(sha);
    if (!listing.truncated) {
      this.remember(sha, listing.entries);
      return listing.entries;
    }
    this.truncatedTrees.add(sha);
    const proven = this.learn(sha, listing.entries);
    if (proven) this.remember(sha, proven);
    return proven;
  }

  /** A tree's direct entries: proven from a truncated listing, or one plain listing. */
  async plain(sha: string): Promise<TreeEntry[]> {
    return this.direct.get(sha) ?? (await this.upstream.getTree(sha));
  }

  /** Remembers a tree known whole by other means (a tree built locally and checked against its SHA). */
  remember(sha: string, entries: TreeEntry[]): void {
    if (this.whole.has(sha)) return;
    this.whole.set(sha, Promise.resolve(entries));
    this.keep(sha, entries);
  }

  /**
   * Makes the trees known whole that batched reads can bring (Upstream.getTrees): the direct listings of
   * everything below them, a few levels per call, round after round. What they cannot bring stays for REST.
   */
  async prefetch(shas: string[]): Promise<void> {
    if (!this.upstream.getTrees) return;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const missing = this.unlisted(shas);
      if (missing.length === 0) break;
      const got = await this.upstream.getTrees(missing);
      if (got.size === 0) return;
      for (const [sha, list] of got) this.direct.set(sha, list);
    }
    for (const sha of shas) {
      const built = this.assemble(sha);
      if (built) this.remember(sha, built);
    }
  }

  /** Trees at or below `roots` that are neither known whole nor listed directly, the highest first. */
  private unlisted(roots: string[]): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    let level = roots;
    while (level.length > 0) {
      const next: string[] = [];
      for (const sha of level) {
        if (seen.has(sha) || this.whole.has(sha)) continue;
        seen.add(sha);
        const list = this.direct.get(sha);
        if (!list) out.push(sha);
        else for (const entry of list) if (entry.type === 'tree') next.push(entry.sha);
      }
      level = next;
    }
    return out;
  }

  /** The whole tree from what is known without asking (direct listings, trees known whole); else null. */
  private assemble(sha: string): TreeEntry[] | null {
    const settled = this.settled.get(sha);
    if (settled) return settled;
    const top = this.direct.get(sha);
    if (!top) return null;
    const out: TreeEntry[] = [];
    for (const entry of top) {
      out.push(entry);
      if (entry.type !== 'tree') continue;
      const below = this.assemble(entry.sha);
      if (!below) return null;
      for (const inner of below) out.push({ ...inner, path: `${entry.path}/${inner.path}` });
    }
    return out;
  }

  private async load(sha: string, plainFirst: boolean): Promise<TreeEntry[]> {
    const built = this.assemble(sha);
    if (built) return built;
    if (!plainFirst && !this.truncatedTrees.has(sha)) {
      const listing = await this.upstream.getTreeRecursive(sha);
      if (!listing.truncated) return listing.entries;
      this.truncatedTrees.add(sha);
      const proven = this.learn(sha, listing.entries);
      if (proven) return proven;
    }
    const top = await this.plain(sha);
    checkNames(sha, top);
    this.direct.set(sha, top);
    // Every child not yet known whole, in batched reads first; each then is built or listed as before.
    await this.prefetch(top.filter((e) => e.type === 'tree' && !this.whole.has(e.sha)).map((e) => e.sha));
    checkNames(sha, top);
    const below = await Promise.all(
      top.map((entry) => (entry.type === 'tree' ? this.list(entry.sha) : Promise.resolve([]))),
    );
    const out: TreeEntry[] = [];
    top.forEach((entry, i) => {
      out.push(entry);
      for (const inner of below[i]!) out.push({ ...inner, path: `${entry.path}/${inner.path}` });
    });
    return out;
  }

  /**
   * Keeps what a truncated recursive listing of `rootSha` proves: every directory whose listed entries
   * hash to its SHA has its direct listing; every such directory whose subdirectories are all whole is
   * whole. Returns the root's entries when the root itself is whole.
   */
  private learn(rootSha: string, entries: TreeEntry[]): TreeEntry[] | null {
    const shaOf = new Map<string, string>([['', rootSha]]);
    const children = new Map<string, Map<string, TreeEntry>>([['', new Map()]]);
    const unprovable = new Set<string>();
    for (const entry of entries) {
      if (entry.type !== 'tree') continue;
      shaOf.set(entry.path, entry.sha);
      children.set(entry.path, new Map());
    }
    for (const entry of entries) {
      const parent = parentOf(entry.path);
      const siblings = children.get(parent);
      if (!siblings || siblings.has(nameOf(entry.path))) unprovable.add(parent);
      else siblings.set(nameOf(entry.path), entry);
    }
    const deepestFirst = [...children.keys()].sort((a, b) => depth(b) - depth(a));
    const isWhole = new Set<string>();
    for (const dir of deepestFirst) {
      const listed = children.get(dir)!;
      if (unprovable.has(dir) || treeSha(listed as Map<string, HashedEntry>) !== shaOf.get(dir)) continue;
      if ([...listed.values()].every((e) => e.type !== 'tree' || isWhole.has(e.path))) isWhole.add(dir);
      else
        this.direct.set(
          shaOf.get(dir)!,
          [...listed].map(([name, entry]) => ({ ...entry, path: name })),
        );
    }
    // every entry joins the largest whole directory above it
    const outermost = (path: string): string | null => {
      let found: string | null = null;
      for (let dir = parentOf(path); ; dir = parentOf(dir)) {
        if (isWhole.has(dir)) found = dir;
        if (dir === '') return found;
      }
    };
    const lists = new Map<string, TreeEntry[]>();
    for (const entry of entries) {
      const dir = outermost(entry.path);
      if (dir === null) continue;
      const list = lists.get(dir) ?? [];
      lists.set(dir, list);
      list.push(dir === '' ? entry : { ...entry, path: entry.path.slice(dir.length + 1) });
    }
    for (const [dir, list] of lists) if (dir !== '') this.remember(shaOf.get(dir)!, list);
    return lists.get('') ?? null;
  }

  private keep(sha: string, entries: TreeEntry[]): void {
    if (this.sizes.has(sha)) return;
    this.sizes.set(sha, entries.length);
    this.settled.set(sha, entries);
    this.kept += entries.length;
    for (const [old, n] of this.sizes) {
      if (this.kept <= KEEP_ENTRIES || old === sha) break;
      this.sizes.delete(old);
      this.whole.delete(old);
      this.settled.delete(old);
      this.kept -= n;
    }
  }
}

const depth = (path: string): number => (path === '' ? 0 : path.split('/').length);

/** A name git forbids (empty, holding "/") or listed twice could join into a path that is not there. */
function checkNames(sha: string, entries: TreeEntry[]): void {
  const seen = new Set<string>();
  for (const { path } of entries) {
    if (path === '' || path.includes('/') || seen.has(path))
      throw new UpstreamError(
        'invalid',
        `tree ${sha} lists an entry named ${JSON.stringify(path)}: expected unique single path segments`,
      );
    seen.add(path);
  }
}
