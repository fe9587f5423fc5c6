import { describe, expect, it } from 'vitest';
import {
  reviewBody,
  reviewBranch,
  reviewSummary,
  reviewTable,
  sentToReview,
} from '../../src/apply/review-routing.js';
import { compilePerimeter } from '../../src/policy/index.js';
import { perimeterSpec } from '@perimeter/test-rigs';

const implementer = compilePerimeter(
  perimeterSpec({ name: 'implementer', write: ['src/**'], review: ['AGENTS.md', 'docs/**'] }),
);
const docs = compilePerimeter(perimeterSpec({ name: 'docs', write: ['docs/**'], branches: ['docs/*'] }));

describe('sentToReview', () => {
  describe('when no bound perimeter may write a path but one may send it to review', () => {
    it('lists it with the perimeter and the rule', () => {
      expect(sentToReview(['src/a.ts', 'AGENTS.md', 'docs/x.md'], 'agent/x', [implementer, docs])).toEqual([
        { path: 'AGENTS.md', rule: 'implementer: review glob "AGENTS.md" (protected: AGENTS.md)' },
        { path: 'docs/x.md', rule: 'implementer: review glob "docs/**" (no write glob matches)' },
      ]);
    });
  });

  describe('when another bound perimeter may write the path', () => {
    it('does not send it to review', () => {
      expect(sentToReview(['docs/x.md'], 'docs/a', [implementer, docs])).toEqual([]);
    });
  });

  describe('when no perimeter may send the path to review', () => {
    it('leaves it out: judging refused it already', () => {
      expect(sentToReview(['README.md'], 'agent/x', [implementer])).toEqual([]);
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
