import { describe, expect, it } from 'vitest';
import {
  MAX_SCOPE_REASON,
  MAX_SCOPE_REQUESTS,
  parseConfig,
  proposeScope,
  scopeRequestProblem,
} from '../../src/policy/index.js';

const TEXT = `# who may touch what
version: 1
perimeters:
  implementer:
    read: ["src/**", "docs/**"]
    write: ["src/**"] # the code
  reader:
    read: ["**"]
`;

describe('scopeRequestProblem', () => {
  it('accepts a glob with a reason', () =>
    expect(scopeRequestProblem('docs/**', 'the API docs', 0)).toBeNull());

  it.each([
    ['/docs/**', 'why', 0, /not a perimeters.yml glob: leading "\/"/],
    ['docs/**', '  ', 0, /give a reason/],
    ['docs/**', 'x'.repeat(MAX_SCOPE_REASON + 1), 0, /at most 500 are recorded/],
    ['docs/**', 'why', MAX_SCOPE_REQUESTS, /already recorded 10 scope requests/],
  ])('refuses %j (%#)', (glob, reason, recorded, message) => {
    expect(scopeRequestProblem(glob, reason, recorded)).toMatch(message);
  });
});

describe('proposeScope', () => {
  describe('when the perimeters exist', () => {
    it("adds each glob to the perimeter's write list, keeping comments, and the file stays valid", () => {
      const proposed = proposeScope(TEXT, 'perimeters.yml', [
        { perimeter: 'implementer', glob: 'docs/**' },
        { perimeter: 'reader', glob: 'notes/*.md' },
        { perimeter: 'implementer', glob: 'src/**' },
      ])!;
      expect(proposed).toContain('# who may touch what');
      const config = parseConfig(proposed);
      expect(config.perimeters.map((p) => [p.name, p.write])).toEqual([
        ['implementer', ['src/**', 'docs/**']],
        ['reader', ['notes/*.md']],
      ]);
    });
  });

  describe("when the asker's write list is shared with another perimeter through an anchor", () => {
    const SHARED = `version: 1
perimeters:
  implementer:
    read: ["**"]
    write: &code ["src/**"] # shared
  release:
    read: ["**"]
    write: *code
    branches: [main]
  docs:
    read: ["**"]
    write: &prose
      - docs/**
  editor:
    read: ["**"]
    write: *prose
`;
    const writes = (text: string) =>
      Object.fromEntries(parseConfig(text).perimeters.map((p) => [p.name, p.write]));

    it.each([
      ['the anchor', 'implementer', { implementer: ['src/**', 'test/**'], release: ['src/**'] }],
      ['the alias', 'release', { implementer: ['src/**'], release: ['src/**', 'test/**'] }],
      ['a block list', 'docs', { docs: ['docs/**', 'test/**'], editor: ['docs/**'] }],
      ['an alias of a block list', 'editor', { docs: ['docs/**'], editor: ['docs/**', 'test/**'] }],
    ])("grows only the asker's list when it holds %s", (_name, perimeter, expected) => {
      const proposed = proposeScope(SHARED, 'perimeters.yml', [{ perimeter, glob: 'test/**' }])!;
      expect(proposed).not.toBeNull();
      expect(writes(proposed)).toEqual({ ...writes(SHARED), ...expected });
    });

    it('keeps the anchor where no other perimeter loses it', () => {
      const proposed = proposeScope(SHARED, 'perimeters.yml', [{ perimeter: 'release', glob: 'test/**' }])!;
      expect(proposed).toContain('write: &code [ "src/**" ] # shared');
      expect(proposed).toContain('write: *prose');
    });

    it('answers null when a whole perimeter is an alias of the asker, rather than grow both', () => {
      const whole = `version: 1
perimeters:
  implementer: &impl
    read: ["**"]
    write: ["src/**"]
  twin: *impl
`;
      expect(
        proposeScope(whole, 'perimeters.yml', [{ perimeter: 'implementer', glob: 'test/**' }]),
      ).toBeNull();
    });
  });

  describe('when nothing can be added', () => {
    it('answers null for an unknown perimeter or a glob already listed', () => {
      expect(proposeScope(TEXT, 'perimeters.yml', [{ perimeter: 'nobody', glob: 'x/**' }])).toBeNull();
      expect(proposeScope(TEXT, 'perimeters.yml', [{ perimeter: 'implementer', glob: 'src/**' }])).toBeNull();
    });
  });

  describe('when the result would not be a valid file', () => {
    it('answers null', () => {
      expect(proposeScope(TEXT, 'perimeters.yml', [{ perimeter: 'implementer', glob: '!x' }])).toBeNull();
    });
  });
});
