import type { CommitInfo } from '../../github/index.js';
import { attributeCommit, type CommitIdentityFacts, type Perimeter } from '../../policy/index.js';

/** Who judges one commit of a pull request: a perimeter, nobody (a person's own), or no one could tell. */
export type CommitJudge =
  | { kind: 'perimeter'; perimeter: Perimeter; by: string }
  | { kind: 'person'; login: string; by: string }
  | { kind: 'unattributed'; reason: string };

/** What GitHub says about the commit; a commit read as a git object only carries no word of GitHub's. */
function factsOf(commit: CommitInfo): CommitIdentityFacts {
  const github = commit.github;
  if (github === undefined)
    return {
      sha: commit.sha,
      author: null,
      committer: null,
      verified: false,
      reason: 'not read from GitHub',
    };
  return { sha: commit.sha, ...github };
}

/**
 * Each commit's judge, by the maker GitHub vouches for (policy's attributeCommit): `perimeters` are all of
 * perimeters.yml's, `assigned` the one its `pull-requests` rules give the pull request itself, if any.
 */
export function attributePullCommits(
  perimeters: Perimeter[],
  commits: CommitInfo[],
  assigned: Perimeter | null,
): Map<string, CommitJudge> {
  const byName = new Map(perimeters.map((p) => [p.name, p]));
  const specs = perimeters.map((p) => p.spec);
  return new Map(
    commits.map((commit): [string, CommitJudge] => {
      const found = attributeCommit(specs, factsOf(commit), assigned?.spec ?? null);
      if (found.kind !== 'perimeter') return [commit.sha, found];
      const perimeter = found.spec.name === assigned?.name ? assigned : byName.get(found.spec.name);
      return [
        commit.sha,
        perimeter === undefined
          ? { kind: 'unattributed', reason: `perimeter "${found.spec.name}" is not compiled` }
          : { kind: 'perimeter', perimeter, by: found.by },
      ];
    }),
  );
}
