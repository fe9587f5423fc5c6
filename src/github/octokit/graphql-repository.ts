/**
 * The repository's default branch and one file on a ref, in one GraphQL call (1 point of GraphQL's own
 * budget) where REST takes two requests charged to the REST budget (GET /repos/{owner}/{repo} and the
 * contents API): what main and the verify job read first. With no ref given, the file is read on the
 * default branch named in the same answer (`defaultBranchRef`), so the two agree
 * (https://docs.github.com/en/graphql/reference/objects#repository, #commit `file(path:)`, #blob).
 */
export const REPOSITORY_FILE = `query($owner: String!, $name: String!, $path: String!, $expression: String!, $onRef: Boolean!) {
  repository(owner: $owner, name: $name) {
    isPrivate
    defaultBranchRef {
      name
      target { ... on Commit { oid file(path: $path) @skip(if: $onRef) { object { ...blob } } } }
    }
    object(expression: $expression) @include(if: $onRef) { ...blob }
  }
}
fragment blob on Blob { oid text isBinary isTruncated }`;

interface GqlBlob {
  oid?: string;
  text?: string | null;
  isBinary?: boolean | null;
  isTruncated?: boolean;
}

export interface RepositoryFileAnswer {
  repository: {
    isPrivate: boolean;
    defaultBranchRef: {
      name: string;
      target: { oid?: string; file?: { object: GqlBlob | null } | null } | null;
    } | null;
    object?: GqlBlob | null;
  } | null;
}

export function repositoryFileVariables(path: string, ref: string | null): Record<string, unknown> {
  return { path, expression: ref === null ? '' : `${ref}:${path}`, onRef: ref !== null };
}

/**
 * The answer read: the repository, and the file when the answer holds it whole as text; `file` null when it
 * does not (absent, not a blob, binary or truncated): the caller reads it by REST, whose errors say which.
 */
export function repositoryFileOf(
  answer: RepositoryFileAnswer,
  ref: string | null,
): {
  defaultBranch: string;
  private: boolean;
  ref: string;
  /** the commit the file was read at: the default branch's head, when no ref was given */
  commit: string | null;
  file: { text: string; sha: string } | null;
} | null {
  const repository = answer.repository;
  const defaultBranch = repository?.defaultBranchRef?.name;
  if (!repository || !defaultBranch) return null;
  const blob = ref === null ? repository.defaultBranchRef?.target?.file?.object : repository.object;
  const whole =
    blob &&
    typeof blob.oid === 'string' &&
    typeof blob.text === 'string' &&
    !blob.isBinary &&
    !blob.isTruncated &&
    // GraphQL decodes bytes that are not UTF-8 to U+FFFD; REST's read refuses them, and says so
    !blob.text.includes('\uFFFD');
  return {
    defaultBranch,
    private: repository.isPrivate,
    ref: ref ?? defaultBranch,
    commit: ref === null ? (repository.defaultBranchRef?.target?.oid ?? null) : null,
    file: whole ? { text: blob.text as string, sha: blob.oid as string } : null,
  };
}
