import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignPullRequest, parseConfig, pullRequestMatch } from '../../src/policy/index.js';

const CONFIG = `version: 1
perimeters:
  copilot:
    write: ["src/**"]
    pull-requests: { authors: [Copilot], branches: ["copilot/**"] }
  docs-bot:
    write: ["docs/**"]
    pull-requests: { authors: ["docs-writer[bot]"] }
  agents:
    write: ["test/**"]
    pull-requests: { branches: ["agents/*"] }
  humans:
    write: ["**"]
`;
const specs = parseConfig(CONFIG).perimeters;
const assign = (author: string, headBranch: string) => assignPullRequest(specs, { author, headBranch });

describe('assignPullRequest', () => {
  describe('when exactly one rule matches', () => {
    it('assigns its perimeter and says by what', () => {
      const result = assign('Copilot', 'copilot/fix-42');
      expect(result).toMatchObject({
        kind: 'assigned',
        spec: { name: 'copilot' },
        rule: 'author "Copilot", head branch glob "copilot/**"',
      });
    });
    it('compares logins without regard to case, as GitHub does', () => {
      expect(assign('copilot', 'copilot/x')).toMatchObject({ kind: 'assigned', spec: { name: 'copilot' } });
      expect(assign('Docs-Writer[bot]', 'any')).toMatchObject({ spec: { name: 'docs-bot' } });
    });
    it('matches a branch-only rule by the head branch alone', () => {
      expect(assign('someone', 'agents/a')).toMatchObject({ spec: { name: 'agents' } });
    });
  });

  describe('when the author and the branch are both listed', () => {
    it('needs both: the right author on another branch is not assigned', () => {
      expect(assign('Copilot', 'feature/x')).toMatchObject({ kind: 'none' });
    });
    it('needs both: another author on a copilot/ branch is not assigned', () => {
      expect(assign('mallory', 'copilot/x')).toMatchObject({ kind: 'none' });
    });
    it('reads "copilot/**" as git does: inside copilot/, not a branch named copilot', () => {
      expect(assign('Copilot', 'copilot')).toMatchObject({ kind: 'none' });
    });
  });

  describe('when no rule matches', () => {
    it('says that no perimeter is assigned to this author and branch', () => {
      expect(assign('alice', 'main')).toEqual({
        kind: 'none',
        reason:
          'no perimeter is assigned to pull requests by "alice" from "main" (no "pull-requests" rule matches)',
      });
    });
  });

  describe('when more than one rule matches', () => {
    it('names them all and assigns none', () => {
      expect(assign('docs-writer[bot]', 'agents/x')).toEqual({
        kind: 'ambiguous',
        names: ['docs-bot', 'agents'],
        reason: expect.stringContaining('more than one perimeter is assigned to pull requests'),
      });
    });
  });
});

describe('pullRequestMatch against a reference matcher', () => {
  // Branch names and globs from a few segment shapes; the reference reads them as git's wildmatch does for
  // these shapes: "*" stays inside a segment, "**" is any number of segments, a trailing "/**" at least one.
  const SEGMENTS = ['a', 'b', 'ab', 'ba', 'copilot'];
  const branch = fc
    .array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 })
    .map((s) => s.join('/'));
  const globSegment = fc.constantFrom('a', 'b', 'copilot', '*', 'a*', '*b', '**');
  const glob = fc
    .array(globSegment, { minLength: 1, maxLength: 4 })
    .filter((s) => !(s.length === 1 && s[0] === '**'))
    .map((s) => s.join('/'));

  function segmentMatches(pattern: string, name: string): boolean {
    const re = new RegExp(`^${pattern.split('*').join('[^/]*')}$`);
    return re.test(name);
  }
  function reference(pattern: string[], name: string[]): boolean {
    if (pattern.length === 0) return name.length === 0;
    const [head, ...rest] = pattern;
    if (head === '**') {
      const least = rest.length === 0 ? 1 : 0;
      for (let skip = least; skip <= name.length; skip++) if (reference(rest, name.slice(skip))) return true;
      return false;
    }
    return name.length > 0 && segmentMatches(head!, name[0]!) && reference(rest, name.slice(1));
  }

  it('matches a head branch exactly when the reference does', () => {
    fc.assert(
      fc.property(glob, branch, (g, b) => {
        const ours =
          pullRequestMatch({ authors: [], branches: [g] }, { author: 'x', headBranch: b }) !== null;
        expect(ours).toBe(reference(g.split('/'), b.split('/')));
      }),
      { numRuns: 2000 },
    );
  });

  it('assigns exactly when one perimeter matches, and never assigns a perimeter whose rule does not match', () => {
    const author = fc.constantFrom('Copilot', 'copilot', 'alice', 'docs-writer[bot]');
    fc.assert(
      fc.property(
        author,
        branch,
        fc.array(fc.tuple(fc.boolean(), glob), { minLength: 1, maxLength: 4 }),
        (who, b, rules) => {
          const candidates = rules.map(([byAuthor, g], i) => ({
            ...specs[3]!,
            name: `p${i}`,
            pullRequests: { authors: byAuthor ? ['Copilot'] : [], branches: [g] },
          }));
          const matching = candidates.filter(
            (c) =>
              (!c.pullRequests.authors.length || who.toLowerCase() === 'copilot') &&
              reference(c.pullRequests.branches[0]!.split('/'), b.split('/')),
          );
          const result = assignPullRequest(candidates, { author: who, headBranch: b });
          if (matching.length === 1)
            expect(result).toMatchObject({ kind: 'assigned', spec: { name: matching[0]!.name } });
          else if (matching.length === 0) expect(result.kind).toBe('none');
          else expect(result).toMatchObject({ kind: 'ambiguous', names: matching.map((m) => m.name) });
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('parseConfig pull-requests', () => {
  it('reports a rule that matches nothing at its line and column', () => {
    expect(() => parseConfig('version: 1\nperimeters:\n  p:\n    pull-requests: {}\n')).toThrow(
      /perimeters\.yml:4:20: perimeters\.p\.pull-requests: matches no pull request/,
    );
  });
  it('reports an author that is no login', () => {
    expect(() =>
      parseConfig('version: 1\nperimeters:\n  p:\n    pull-requests: { authors: ["Copilot agent"] }\n'),
    ).toThrow(/perimeters\.p\.pull-requests\.authors\[0\]: "Copilot agent": not a GitHub login/);
  });
});
