import { existsSync } from 'node:fs';
import { JobBook } from './actions/actions-jobs.js';
import type { AppIdentity } from './apps.js';
import { join } from 'node:path';
import { installHooks, recordRefChange, WORKFLOWS_DIR } from './activity-log.js';
import { CatFile, git, GitError, gitText, tryGit, ZERO_SHA } from './git/git.js';
import type { GitObject } from './git/git.js';
import type { StoredRuleset } from './rules/ruleset.js';
import { initBare } from './seed.js';

export interface Person {
  name: string;
  email: string;
  date: string;
}

export interface ParsedCommit {
  sha: string;
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  message: string;
  signature: string | null;
  payload: string;
}

export interface RawTreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  size?: number;
  path: string;
}

/**
 * Check runs as GitHub's Checks API keeps them: created by an app (a GITHUB_TOKEN's is github-actions), with an
 * output of a title, a summary, a text and annotations (at most 50 a request; an update appends more), listed
 * per commit. https://docs.github.com/rest/checks/runs
 */
export interface StoredCheckRun {
  id: number;
  headSha: string;
  name: string;
  status: string;
  conclusion: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  /** set by the creator (started_at), else the time of creation */
  startedAt: string;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: Array<Record<string, unknown>>;
  /** the App whose installation token created it (a GITHUB_TOKEN's is github-actions) */
  app: AppIdentity;
}

export interface StoredStatus {
  id: number;
  sha: string;
  state: string;
  description: string | null;
  target_url: string | null;
  context: string;
  creator: string;
  /** the id of the App whose installation token created it; null when a person's token did */
  creatorApp: number | null;
  created_at: string;
  updated_at: string;
}

/** A pull request as the stand-in keeps it; head and base are branch names of the same repository. */
export interface StoredPull {
  number: number;
  title: string;
  body: string | null;
  head: string;
  base: string;
  draft: boolean;
  user: string;
  labels: string[];
  created_at: string;
  /** 'closed' once merged (the stand-in closes pull requests only by merging them) */
  state: 'open' | 'closed';
  merged_at: string | null;
  merge_commit_sha: string | null;
  merged_by: string | null;
  /** reviews, oldest first (absent: none yet) */
  reviews?: StoredReview[];
  /** its conversation (issue comments), oldest first (absent: none yet) */
  comments?: StoredComment[];
  /** when its title, body or base last changed (absent: never since it was opened) */
  updated_at?: string;
}

/**
 * An issue as the stand-in keeps it. Issues and pull requests share one sequence of numbers, as on GitHub.
 * https://docs.github.com/rest/issues/issues
 */
export interface StoredIssue {
  number: number;
  title: string;
  body: string | null;
  user: string;
  labels: string[];
  state: 'open' | 'closed';
  created_at: string;
  comments?: StoredComment[];
}

/** An issue comment (on an issue or on a pull request's conversation). https://docs.github.com/rest/issues/comments */
export interface StoredComment {
  id: number;
  user: string;
  body: string;
  created_at: string;
}

/** A submitted pull request review: https://docs.github.com/rest/pulls/reviews */
export interface StoredReview {
  id: number;
  user: string;
  body: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
  commit_id: string;
  submitted_at: string;
}

/** One repository the stand-in serves: a bare git repository and the few facts git does not hold. */
export class FakeRepo {
  readonly catFile: CatFile;
  readonly statuses: StoredStatus[] = [];
  /** check runs (the Checks API), oldest first */
  readonly checkRuns: StoredCheckRun[] = [];
  readonly pulls: StoredPull[] = [];
  readonly issues: StoredIssue[] = [];
  /** login -> repository permission (admin, maintain, write, triage, read); the owner is admin */
  readonly collaborators = new Map<string, string>();
  /** repository rulesets, oldest first */
  readonly rulesets: StoredRuleset[] = [];
  /** workflow jobs the tests recorded (the Actions jobs API answers from them) */
  readonly jobs = new JobBook();
  private readonly ancestry = new Map<string, boolean>();
  readonly id: number;

  constructor(
    readonly owner: string,
    readonly name: string,
    readonly dir: string,
    readonly isPrivate: boolean,
    id: number,
  ) {
    this.catFile = new CatFile(dir);
    this.id = id;
  }

  /** The next issue or pull request number: both count in one sequence on GitHub. */
  nextIssueNumber(): number {
    return Math.max(0, ...this.pulls.map((p) => p.number), ...this.issues.map((i) => i.number)) + 1;
  }

  /** A collaborator's permission (https://docs.github.com/rest/collaborators/collaborators): none for others. */
  permissionOf(login: string): string {
    if (login.toLowerCase() === this.owner.toLowerCase()) return 'admin';
    for (const [who, permission] of this.collaborators)
      if (who.toLowerCase() === login.toLowerCase()) return permission;
    return 'none';
  }

  get fullName(): string {
    return `${this.owner}/${this.name}`;
  }

  static async open(fullName: string, dir: string, isPrivate: boolean, id: number): Promise<FakeRepo> {
    const [owner, name] = fullName.split('/');
    if (!owner || !name) throw new Error(`expected OWNER/NAME, got ${JSON.stringify(fullName)}`);
    if (!existsSync(join(dir, 'HEAD'))) await initBare(dir);
    else await installHooks(dir);
    return new FakeRepo(owner, name, dir, isPrivate, id);
  }

  async defaultBranch(): Promise<string> {
    const head = (
      await gitText(this.dir, ['symbolic-ref', '--quiet', 'HEAD']).catch(() => 'refs/heads/main')
    ).trim();
    return head.replace(/^refs\/heads\//, '');
  }

  async isEmpty(): Promise<boolean> {
    const out = await gitText(this.dir, ['for-each-ref', '--count=1', '--format=%(refname)']);
    return out.trim() === '';
  }

  /** Refs whose full name starts with `prefix` (plain string prefix, as matching-refs does), sorted by name. */
  async listRefs(prefix = 'refs/'): Promise<Array<{ ref: string; sha: string; type: string }>> {
    const out = await gitText(this.dir, ['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)']);
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [sha, type, ...name] = line.split(' ');
        return { ref: name.join(' '), sha: sha!, type: type! };
      })
      .filter((row) => row.ref.startsWith(prefix))
      .sort((a, b) => (a.ref < b.ref ? -1 : 1));
  }

  /** The SHA a full ref name points at, or null. */
  async refValue(ref: string): Promise<string | null> {
    if (!ref.startsWith('refs/') || !isSafeRefName(ref)) return null;
    // cat-file resolves refs afresh on every line, loose or packed, so the long-lived process will do.
    return (await this.catFile.read(ref))?.sha ?? null;
  }

  /** Resolves a branch, tag or SHA (as GitHub accepts in `sha`/`ref` parameters) to a commit SHA. */
  async resolveCommit(name: string): Promise<string | null> {
    if (!isSafeRefName(name)) return null;
    const object = await this.catFile.read(`${name}^{commit}`);
    return object?.sha ?? null;
  }

  async readObject(name: string): Promise<GitObject | null> {
    return this.catFile.read(name);
  }

  async readCommit(sha: string): Promise<ParsedCommit | null> {
    const object = await this.catFile.read(sha);
    if (!object || object.type !== 'commit') return null;
    return parseCommit(object.sha, object.data);
  }

  /** Whether `ancestor` is reachable from `descendant`; a yes for two SHAs is remembered (it never changes). */
  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const key = `${ancestor}..${descendant}`;
    const known = this.ancestry.get(key);
    if (known !== undefined) return known;
    const answer = await tryGit(this.dir, ['merge-base', '--is-ancestor', ancestor, descendant]);
    if (answer && /^[0-9a-f]{40}$/.test(ancestor) && /^[0-9a-f]{40}$/.test(descendant))
      this.ancestry.set(key, true);
    return answer;
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    try {
      return (await gitText(this.dir, ['merge-base', a, b])).trim() || null;
    } catch {
      return null;
    }
  }

  /** Entries of a tree; recursive lists every blob and subtree below it (like `ls-tree -r -t`). */
  async lsTree(treeSha: string, recursive: boolean): Promise<RawTreeEntry[]> {
    const args = ['ls-tree', '-z', '--long', '--full-tree'];
    if (recursive) args.push('-r', '-t');
    const out = await gitText(this.dir, [...args, treeSha]);
    const entries: RawTreeEntry[] = [];
    let at = 0;
    while (at < out.length) {
      const end = out.indexOf('\0', at);
      const record = out.slice(at, end < 0 ? out.length : end);
      at = end < 0 ? out.length : end + 1;
      if (!record) continue;
      // "<mode> SP <type> SP <sha> SP+ <size or -> TAB <path>"
      const s1 = record.indexOf(' ');
      const s2 = record.indexOf(' ', s1 + 1);
      const s3 = record.indexOf(' ', s2 + 1);
      const tab = record.indexOf('\t', s3);
      const type = record.slice(s1 + 1, s2) as RawTreeEntry['type'];
      const entry: RawTreeEntry = {
        mode: record.slice(0, s1),
        type,
        sha: record.slice(s2 + 1, s3),
        path: record.slice(tab + 1),
      };
      if (type === 'blob') entry.size = Number(record.slice(s3 + 1, tab).trim());
      entries.push(entry);
    }
    return entries;
  }

  /** Workflow files changed by the commits `sha` would add to the repository (reachable from no ref yet). */
  async workflowChanges(sha: string): Promise<string[]> {
    const out = await gitText(this.dir, [
      'log',
      '--format=',
      '--name-only',
      '-m',
      sha,
      '--not',
      '--all',
      '--',
      WORKFLOWS_DIR,
    ]);
    return [...new Set(out.split('\n').filter(Boolean))];
  }

  async hashObject(type: 'blob' | 'tree' | 'commit', data: Buffer): Promise<string> {
    return (await gitText(this.dir, ['hash-object', '-w', '-t', type, '--stdin'], { input: data })).trim();
  }

  /**
   * Moves `ref` from `expected` (null = must not exist) to `next` (null = delete) atomically and records
   * the change for the Activity API. Returns false when the ref did not hold `expected`.
   */
  async moveRef(
    ref: string,
    expected: string | null,
    next: string | null,
    actor: string | null,
  ): Promise<boolean> {
    const args =
      next === null
        ? ['update-ref', '-d', ref, expected ?? '']
        : ['update-ref', ref, next, expected ?? ZERO_SHA];
    try {
      await git(this.dir, args);
    } catch (error) {
      if (error instanceof GitError) return false;
      throw error;
    }
    await recordRefChange(this.dir, { before: expected ?? ZERO_SHA, after: next ?? ZERO_SHA, ref, actor });
    return true;
  }

  close(): void {
    this.catFile.close();
  }
}

/** Rejects names git would read as options or that could never be refs. */
export function isSafeRefName(name: string): boolean {
  return name.length > 0 && !name.startsWith('-') && !/[\s\0~^:?*[\\]|\.\.|@\{/.test(name);
}

function parsePerson(text: string): Person {
  const match = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(text);
  if (!match) return { name: text, email: '', date: new Date(0).toISOString() };
  const seconds = Number(match[3]);
  return {
    name: match[1]!,
    email: match[2]!,
    date: new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'),
  };
}

export function parseCommit(sha: string, data: Buffer): ParsedCommit {
  const text = data.toString('utf8');
  const split = text.indexOf('\n\n');
  const headerText = split < 0 ? text : text.slice(0, split);
  const message = split < 0 ? '' : text.slice(split + 2);
  const commit: ParsedCommit = {
    sha,
    tree: '',
    parents: [],
    author: parsePerson(''),
    committer: parsePerson(''),
    message,
    signature: null,
    payload: '',
  };
  const payloadLines: string[] = [];
  const lines = headerText.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'gpgsig') {
      const sig = [value];
      while (lines[i + 1]?.startsWith(' ')) sig.push(lines[++i]!.slice(1));
      commit.signature = sig.join('\n');
      continue;
    }
    payloadLines.push(line);
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = parsePerson(value);
    else if (key === 'committer') commit.committer = parsePerson(value);
  }
  commit.payload = `${payloadLines.join('\n')}\n\n${message}`;
  return commit;
}
