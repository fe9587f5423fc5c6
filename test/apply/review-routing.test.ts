import { describe, expect, it } from 'vitest';
import {
  reviewBody,
  reviewBranch,
  reviewSummary,
  reviewTable,
  routeCommit,
} from '../../src/apply/review-routing.js';
import type { CommitToJudge } from '../../src/verify/index.js';
import { compilePerimeter } from '../../src/policy/index.js';
import { perimeterSpec } from '@perimeter/test-rigs';

const implementer = compilePerimeter(
  perimeterSpec({ name: 'implementer', write: ['src/**'], review: ['AGENTS.md', 'docs/**'] }),
);
const docs = compilePerimeter(perimeterSpec({ name: 'docs', write: ['docs/**'], branches: ['docs/*'] }));

const commit = (...paths: string[]): CommitToJudge => ({
  label: 'staged commit 1',
  changes: paths.map((path) => ({ path, kind: 'added' as const, newMode: '100644', newSha: 'a'.repeat(40) })),
  blob: () => ({ size: 10, credentials: [] }),
});

describe('routeCommit', () => {
  describe("when the commit's perimeter may not write a path but may send it to review", () => {
    it('sends it to review with the perimeter and the rule', () => {
      expect(
        routeCommit(commit('src/a.ts', 'AGENTS.md', 'docs/x.md'), 'agent/x', [implementer, docs]),
      ).toEqual({
        violations: [],
        unchecked: [],
        review: [
          { path: 'AGENTS.md', rule: 'implementer: review glob "AGENTS.md" (protected: AGENTS.md)' },
          { path: 'docs/x.md', rule: 'implementer: review glob "docs/**" (no write glob matches)' },
        ],
      });
    });
  });

  describe('when another perimeter bound to the branch may write the reviewed path', () => {
    const writer = compilePerimeter(perimeterSpec({ name: 'docs-writer', write: ['docs/**'] }));

    it("still sends it to review: review is the commit's perimeter's own, never a shortcut", () => {
      expect(
        routeCommit(commit('src/a.ts', 'docs/roadmap.md'), 'agent/x', [implementer, writer]).review,
      ).toEqual([
        { path: 'docs/roadmap.md', rule: 'implementer: review glob "docs/**" (no write glob matches)' },
      ]);
    });

    it('lets a commit that perimeter makes on its own land as it is', () => {
      expect(routeCommit(commit('docs/roadmap.md'), 'agent/x', [implementer, writer])).toEqual({
        violations: [],
        unchecked: [],
        review: [],
      });
    });
  });

  describe('when the commit needs two perimeters even with review', () => {
    it('refuses it, naming what each lacks', () => {
      const tests = compilePerimeter(perimeterSpec({ name: 'test-author', write: ['test/**'] }));
      const routed = routeCommit(commit('src/a.ts', 'test/a.test.ts'), 'agent/x', [implementer, tests]);
      expect(routed.review).toEqual([]);
      expect(routed.violations.map((v) => v.message)).toEqual([
        'staged commit 1: no one perimeter may make the whole commit ("implementer" may not write test/a.test.ts; "test-author" may not write src/a.ts)',
      ]);
    });
  });

  describe('when a reviewed path runs from the branch it is pushed to', () => {
    const ci = compilePerimeter(
      perimeterSpec({ name: 'ci', write: ['src/**'], review: ['.github/**', 'ci/**', '.gitlab-ci.yml'] }),
    );

    it.each(['.github/workflows/release.yml', '.github/actions/setup/action.yml', '.gitlab-ci.yml'])(
      'refuses %s instead of pushing it to a review branch',
      (path) => {
        const routed = routeCommit(commit('src/a.ts', path), 'agent/x', [ci]);
        expect(routed.review).toEqual([]);
        expect(routed.violations).toHaveLength(1);
        expect(routed.violations[0]!.path).toBe(path);
        expect(routed.violations[0]!.message).toContain('not sent to review');
      },
    );

    it('says why, whole, and lands nothing of the commit', () => {
      expect(routeCommit(commit('src/a.ts', '.github/workflows/ci.yml'), 'agent/x', [ci])).toEqual({
        violations: [
          {
            kind: 'path',
            path: '.github/workflows/ci.yml',
            message: expect.stringMatching(
              /^\.github\/workflows\/ci\.yml: not sent to review, because apply would push it to a branch of the repository and .+; a person makes this change$/,
            ),
          },
        ],
        unchecked: [],
        review: [],
      });
    });

    it('sends other reviewed paths', () => {
      expect(routeCommit(commit('ci/notes.md'), 'agent/x', [ci]).review.map((i) => i.path)).toEqual([
        'ci/notes.md',
      ]);
    });
  });

  describe('when a blob of the commit could not be read', () => {
    it('sends nothing to review: the commit is unchecked, never applied', () => {
      const unread: CommitToJudge = { ...commit('src/a.ts', 'docs/x.md'), blob: () => undefined };
      const routed = routeCommit(unread, 'agent/x', [implementer]);
      expect(routed.review).toEqual([]);
      expect(routed.unchecked.length).toBeGreaterThan(0);
    });
  });

  describe('when no perimeter may send the path to review', () => {
    it('refuses the commit', () => {
      const routed = routeCommit(commit('README.md'), 'agent/x', [implementer]);
      expect(routed.review).toEqual([]);
      expect(routed.violations.map((v) => v.path)).toEqual(['README.md']);
    });
  });
});

describe('reviewBranch', () => {
  it('is one branch per run attempt', () => {
    expect(reviewBranch({ id: '42', attempt: '2' })).toBe('perimeter/review/42-2');
  });
});

describe('the words on the pull request', () => {
  const items = [{ path: 'docs/@team [x](y).md', rule: 'implementer: review glob "docs/**"' }];

  it('never lets a path format, link or mention anyone', () => {
    const table = reviewTable(items);
    expect(table).not.toContain('@team');
    expect(table).not.toContain('[x]');
  });

  it('says who decides, and never that Perimeter approves', () => {
    expect(reviewBody(items, true)).toMatch(/Changes are requested.*Perimeter never approves/);
    expect(reviewBody(items, false)).toMatch(/does not block merging by itself/);
  });

  it('says in the summary that a comment review needs branch protection to block merging', () => {
    const pull = { number: 3, url: 'https://github.com/o/r/pull/3' };
    expect(reviewSummary(items, pull, false)).toContain(
      'merge-blocking needs branch protection or CODEOWNERS requiring an approval',
    );
    expect(reviewSummary(items, pull, true)).toContain('requesting changes');
  });

  it('counts the files it does not list', () => {
    const many = Array.from({ length: 3 }, (_, i) => ({ path: `docs/${i}.md`, rule: 'r' }));
    expect(reviewTable(many, 2)).toContain('1 more file(s) not listed.');
  });
});

describe('the words on the pull request, exactly as people read them', () => {
  const one = [{ path: 'docs/a.md', rule: 'implementer: review glob "docs/**"' }];
  const two = [...one, { path: 'docs/b.md', rule: 'implementer: review glob "docs/**"' }];
  const table = '| file | rule |\n| --- | --- |\n| docs/a.md | implementer: review glob "docs/&#42;&#42;" |';
  const pull = { number: 3, url: 'https://github.com/o/r/pull/3' };

  it('lists every file up to the limit, and counts none when all are listed', () => {
    expect(reviewTable(one)).toBe(table);
    expect(reviewTable(two, 2)).toBe(`${table}\n| docs/b.md | implementer: review glob "docs/&#42;&#42;" |`);
    expect(reviewTable(two, 1)).toBe(`${table}\n\n1 more file(s) not listed.`);
  });

  it('writes the review body in full, one change or several, blocking or not', () => {
    expect(reviewBody(one, true)).toBe(
      "Perimeter sent this change to review: the agent's perimeter may not make this change on its own.\n\n" +
        `${table}\n\n` +
        'Changes are requested until a person with the right to approve has looked at each file (with reviews required, this blocks merging). Perimeter never approves.',
    );
    expect(reviewBody(two, false)).toBe(
      "Perimeter sent this change to review: the agent's perimeter may not make these changes on its own.\n\n" +
        `${reviewTable(two)}\n\n` +
        'A person with the right to approve decides. Perimeter never approves; this review does not block merging by itself (branch protection or CODEOWNERS requiring an approval does).',
    );
  });

  it('writes the summary in full, blocking or not', () => {
    expect(reviewSummary(one, pull, true)).toBe(
      'Sent to review in draft pull request [#3](https://github.com/o/r/pull/3); the bound branch was not moved.\n\n' +
        `${table}\n\n` +
        'A review requesting changes names each file (posted with `review-token`). Perimeter never approves.',
    );
    expect(reviewSummary(one, pull, false)).toBe(
      'Sent to review in draft pull request [#3](https://github.com/o/r/pull/3); the bound branch was not moved.\n\n' +
        `${table}\n\n` +
        'The review is a comment: merge-blocking needs branch protection or CODEOWNERS requiring an approval (with `review-token`, a second identity, the review requests changes too). Perimeter never approves.',
    );
  });
});
