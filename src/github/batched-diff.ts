import type { RepoReads, TreeEntry } from './upstream.js';

/** One pair of trees to compare (null: the side is absent), and where it sits. */
export interface TreePair {
  key: string;
  /** the pair's path from the repository root, '' for the root */
  prefix: string;
  base: string | null;
  head: string | null;
}

/** rounds of batched reads before giving up on a pair */
const MAX_ROUNDS = 16;
/**
 * Each round reads only trees that differ, two levels of each: small answers, so many trees a call. Two
 * levels, not one, halve the rounds for a change deep in the tree at the cost of the unchanged siblings'
 * listings one level down.
 */
const LEVELS = 2;
const PER_CALL = 100;

/**
 * Whether each pair's trees differ in a path `wanted` accepts (below directories `descendInto` accepts,
 * when given: it must accept every directory that may hold a wanted path): Merkle-style, level by level over every pair
 * at once, so each round's missing listings go out together in batched reads (Upstream.getTrees, which
 * also brings the levels below). A pair stops as soon as one wanted path differs. The answer is null for a
 * pair whose listings could not all be had (the caller decides another way).
 */
export async function differsWhere(
  upstream: RepoReads,
  pairs: TreePair[],
  wanted: (path: string) => boolean,
  options: { descendInto?: (dir: string) => boolean; levels?: number } = {},
): Promise<Map<string, boolean | null>> {
  const out = new Map<string, boolean | null>();
  const listings = new Map<string, TreeEntry[]>();
  let work = pairs.filter((p) => p.base !== p.head);
  for (const pair of pairs) out.set(pair.key, false);
  for (let round = 0; work.length > 0; round++) {
    const missing = new Set<string>();
    for (const { base, head } of work)
      for (const sha of [base, head]) if (sha !== null && !listings.has(sha)) missing.add(sha);
    if (missing.size > 0) {
      const got =
        round < MAX_ROUNDS && upstream.getTrees
          ? await upstream.getTrees([...missing], { levels: options.levels ?? LEVELS, perCall: PER_CALL })
          : new Map<string, TreeEntry[]>();
      for (const [sha, list] of got) listings.set(sha, list);
    }
    const next: TreePair[] = [];
    for (const pair of work) {
      if (out.get(pair.key) !== false) continue; // decided: found, or unknown
      const before = pair.base === null ? [] : listings.get(pair.base);
      const after = pair.head === null ? [] : listings.get(pair.head);
      if (!before || !after) {
        out.set(pair.key, null);
        continue;
      }
      const old = new Map(before.map((e) => [e.path, e]));
      const now = new Map(after.map((e) => [e.path, e]));
      // a name git forbids could join into a path that is not there: not decided here
      if (
        old.size !== before.length ||
        now.size !== after.length ||
        [...old.keys(), ...now.keys()].some((name) => name === '' || name.includes('/'))
      ) {
        out.set(pair.key, null);
        continue;
      }
      for (const name of new Set([...old.keys(), ...now.keys()])) {
        const o = old.get(name);
        const n = now.get(name);
        if (o && n && o.sha === n.sha && o.mode === n.mode && o.type === n.type) continue;
        const path = pair.prefix === '' ? name : `${pair.prefix}/${name}`;
        const subtree = (e: TreeEntry | undefined) => (e?.type === 'tree' ? e.sha : null);
        if ((o && o.type !== 'tree' && wanted(path)) || (n && n.type !== 'tree' && wanted(path))) {
          out.set(pair.key, true);
          break;
        }
        // a directory that can hold nothing wanted is not listed
        if ((subtree(o) !== null || subtree(n) !== null) && (options.descendInto?.(path) ?? true))
          next.push({ key: pair.key, prefix: path, base: subtree(o), head: subtree(n) });
      }
    }
    work = next.filter((p) => out.get(p.key) === false);
  }
  return out;
}

/** Rounds of prefetchDiff: a change this many batched calls deep is listed the rest of the way by REST. */
const PREFETCH_ROUNDS = 8;

/**
 * Brings every listing a diff of each pair needs into the Upstream's tree cache, in batched reads
 * (Upstream.getTrees): level by level, only the trees where the two sides' SHAs differ, every pair's
 * missing listings of a level together in one call or a few. changedPaths then reads them from the cache,
 * so its answer, the one the agent gets, is the same whichever way the listings came. True when every
 * listing was had; false when some were not (GraphQL failed or was refused; changedPaths lists those by
 * REST, or the caller asks another way).
 */
export async function prefetchDiff(
  upstream: RepoReads,
  pairs: Array<{ base: string | null; head: string | null }>,
  options: { levels?: number; perCall?: number; maxTrees?: number } = {},
): Promise<boolean> {
  if (!upstream.getTrees) return false;
  let asked = 0;
  const listings = new Map<string, TreeEntry[]>();
  const seen = new Set<string>();
  const fresh = (list: Array<{ base: string | null; head: string | null }>) =>
    list.filter((p) => {
      const key = `${p.base}:${p.head}`;
      if (p.base === p.head || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  let work = fresh(pairs);
  let complete = true;
  for (let round = 0; work.length > 0; round++) {
    const missing = new Set<string>();
    for (const { base, head } of work)
      for (const sha of [base, head]) if (sha !== null && !listings.has(sha)) missing.add(sha);
    if (round >= PREFETCH_ROUNDS) return false;
    // a diff wider than the caller will pay for in batched reads: it reads another way
    asked += missing.size;
    if (asked > (options.maxTrees ?? Infinity)) return false;
    if (missing.size > 0) {
      const got = await upstream.getTrees([...missing], {
        levels: options.levels ?? LEVELS,
        perCall: options.perCall ?? PER_CALL,
      });
      for (const [sha, list] of got) listings.set(sha, list);
    }
    const next: Array<{ base: string | null; head: string | null }> = [];
    for (const { base, head } of work) {
      const before = base === null ? [] : listings.get(base);
      const after = head === null ? [] : listings.get(head);
      if (!before || !after) {
        complete = false;
        continue;
      }
      const old = new Map(before.map((e) => [e.path, e]));
      for (const n of after) {
        const o = old.get(n.path);
        old.delete(n.path);
        if (o && o.sha === n.sha && o.mode === n.mode) continue;
        const a = o?.type === 'tree' ? o.sha : null;
        const b = n.type === 'tree' ? n.sha : null;
        if (a !== null || b !== null) next.push({ base: a, head: b });
      }
      for (const o of old.values()) if (o.type === 'tree') next.push({ base: o.sha, head: null });
    }
    work = fresh(next);
  }
  return complete;
}
