import { treeSha, type HashedEntry } from '../git-objects.js';
import type { EntryType, TreeEntry } from '../upstream.js';

/**
 * Many trees in one GraphQL call: each asked by its SHA under an alias (`object(oid:)`), with the entries of
 * the trees below it down to LEVELS levels. A tree's `entries` is a plain list, not a connection, so GitHub
 * counts no nodes for it and the call costs 1 point of GraphQL's own budget (1,000 points an hour for
 * GITHUB_TOKEN, apart from REST's 1,000 requests)
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api).
 * GitHub documents no cap on a tree's entries there; it ends calls that take over 10 seconds, so a call
 * asks for at most TREES_PER_CALL trees (our choice), and whatever fails is listed by REST instead.
 */
export const TREES_PER_CALL = 25;
export const LEVELS = 3;

const FIELDS = 'name mode type oid size';

/** A tree's `entries`, and those of the trees below it, `levels` levels in all. */
export function entriesSelection(levels = LEVELS): string {
  return levels <= 1
    ? `entries { ${FIELDS} }`
    : `entries { ${FIELDS} object { ... on Tree { ${entriesSelection(levels - 1)} } } }`;
}

/** The query for these trees (SHAs already checked as 40 hex digits). */
export function treesQuery(shas: string[], levels = LEVELS): string {
  const aliases = shas.map(
    (sha, i) => `t${i}: object(oid: "${sha}") { ... on Tree { ${entriesSelection(levels)} } }`,
  );
  return `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { ${aliases.join(' ')} } }`;
}

export interface GqlEntry {
  name: string;
  mode: number;
  type: string;
  oid: string;
  size?: number;
  object?: { entries?: GqlEntry[] | null } | null;
}

export interface TreesAnswer {
  repository: Record<string, { entries?: GqlEntry[] | null } | null> | null;
}

const TYPES = new Set<EntryType>(['blob', 'tree', 'commit']);

/** git's mode as REST writes it: six octal digits ("040000" for a tree). */
const modeText = (mode: number): string => mode.toString(8).padStart(6, '0');

/**
 * Every direct listing the answer holds, by tree SHA. A listing is kept only when its entries hash to the
 * SHA it was asked or listed under: what is kept is exactly what a REST listing of that tree gives.
 */
export function listingsOf(shas: string[], answer: TreesAnswer): Map<string, TreeEntry[]> {
  const out = new Map<string, TreeEntry[]>();
  shas.forEach((sha, i) => addListings(out, sha, answer.repository?.[`t${i}`]?.entries));
  return out;
}

/** Adds the listing of tree `sha` (`list`, its entries) and those nested in it, each only if it hashes right. */
export function addListings(
  out: Map<string, TreeEntry[]>,
  sha: string,
  list: GqlEntry[] | null | undefined,
): void {
  if (!Array.isArray(list) || out.has(sha)) return;
  const listing: TreeEntry[] = [];
  const byName = new Map<string, HashedEntry>();
  for (const e of list) {
    if (typeof e?.name !== 'string' || !TYPES.has(e.type as EntryType) || !Number.isInteger(e.mode)) return;
    if (!/^[0-9a-f]{40}$/.test(e.oid)) return;
    const entry: TreeEntry = {
      path: e.name,
      mode: modeText(e.mode),
      type: e.type as EntryType,
      sha: e.oid,
    };
    if (e.type === 'blob' && typeof e.size === 'number') entry.size = e.size;
    listing.push(entry);
    byName.set(e.name, entry);
  }
  if (byName.size !== listing.length || treeSha(byName) !== sha) return;
  out.set(sha, listing);
  for (const e of list) if (e.type === 'tree') addListings(out, e.oid, e.object?.entries);
}
