import { describe, expect, it } from 'vitest';
import { compilePerimeter, withReview } from '../../src/policy/index.js';
import { perimeterSpec } from '@perimeter/test-rigs';

describe('withReview', () => {
  const plain = compilePerimeter(perimeterSpec({ read: ['**'], write: ['src/**'] }));
  const reviewed = compilePerimeter(
    perimeterSpec({
      read: ['**'],
      write: ['src/**'],
      review: ['AGENTS.md', 'docs/**'],
      deny: ['docs/secret/**'],
    }),
  );

  describe('when the perimeter has no review globs', () => {
    it('returns it as it is', () => expect(withReview(plain)).toBe(plain));
  });

  describe('when a path is sent to review', () => {
    it('allows the write, marked review, with the rule that sent it', () => {
      expect(withReview(reviewed).canWrite('AGENTS.md')).toEqual({
        allowed: true,
        rule: 'sent to review: review glob "AGENTS.md" (protected: AGENTS.md)',
        review: true,
      });
    });
  });

  describe('when a path is writable, or neither writable nor reviewable', () => {
    it('decides as the perimeter does', () => {
      const view = withReview(reviewed);
      for (const path of ['src/a.ts', 'README.md', 'docs/secret/k.md', 'docs/../x'])
        expect(view.canWrite(path)).toEqual(reviewed.canWrite(path));
    });
  });

  it('leaves reads and branches alone', () => {
    const view = withReview(reviewed);
    expect(view.canRead('docs/a.md')).toEqual(reviewed.canRead('docs/a.md'));
    expect(view.name).toBe(reviewed.name);
    expect(view.allowsBranch('agent/x')).toBe(true);
  });
});
