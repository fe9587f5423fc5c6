import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validatePath } from '../../src/policy/index.js';
import { foldSegment, isDotGitSegment, MAX_PATH_BYTES, MAX_SEGMENT_BYTES } from '../../src/policy/path.js';

const VALID: string[] = [
  'README.md',
  'src/index.ts',
  'src/.eslintrc',
  '.gitignore',
  '.github/workflows/ci.yml',
  '.gitattributes',
  'a/.gitkeep',
  'a/git/b',
  'a/.git-x/b',
  'a/x.git/b',
  '%2e%2e/%2fetc',
  '%2e%2e',
  'a%00b',
  'docs/café.md',
  'docs/cafe\u0301.md',
  '...',
  'a/.../b',
  'file with spaces.txt',
  'trailing.',
  'ünïcödé/日本語.txt',
  '😀/x',
  'a'.repeat(MAX_SEGMENT_BYTES),
  `${'a'.repeat(200)}/`.repeat(20).slice(0, -1),
];

const INVALID: Array<[string, unknown, RegExp]> = [
  ['empty', '', /empty path/],
  ['a number', 42, /expected a string, got number/],
  ['null', null, /got null/],
  ['an array', ['a'], /got array/],
  ['undefined', undefined, /got undefined/],
  ['absolute', '/etc/passwd', /leading "\/"/],
  ['double slash prefix', '//server/share', /leading "\/"/],
  ['parent traversal', '../secret', /"\.\." segment/],
  ['inner traversal', 'src/../../etc/passwd', /"\.\." segment/],
  ['trailing traversal', 'src/..', /"\.\." segment/],
  ['dot segment', './src/a.ts', /"\." segment/],
  ['inner dot segment', 'src/./a.ts', /"\." segment/],
  ['lone dot', '.', /"\." segment/],
  ['empty segment', 'src//a.ts', /empty segment/],
  ['trailing slash', 'src/', /empty segment/],
  ['backslash traversal', '..\\secret', /backslash/],
  ['backslash separator', 'src\\a.ts', /backslash/],
  ['windows drive', 'C:\\x', /backslash/],
  ['NUL', 'a\u0000b', /U\+0000/],
  ['newline', 'a\nb', /U\+000A/],
  ['carriage return', 'a\rb', /U\+000D/],
  ['tab', 'a\tb', /U\+0009/],
  ['escape', 'a\u001b[31m', /U\+001B/],
  ['DEL', 'a\u007fb', /U\+007F/],
  ['C1 control', 'a\u0085b', /U\+0085/],
  ['C1 CSI', 'a\u009bb', /U\+009B/],
  ['line separator', 'a\u2028b', /U\+2028/],
  ['zero-width space', 'a\u200bb', /invisible character U\+200B/],
  ['zero-width joiner in .git', '.gi\u200dt/config', /invisible character U\+200D/],
  ['byte order mark', '\ufeffREADME.md', /invisible character U\+FEFF/],
  ['soft hyphen', 'a\u00adb', /invisible character U\+00AD/],
  ['lone surrogate', 'a\ud800b', /lone surrogate/],
  ['.git', '.git/config', /"\.git" segment/],
  ['.git alone', '.git', /"\.git" segment/],
  ['nested .git', 'sub/.git/hooks/pre-commit', /"\.git" segment/],
  ['.GIT', '.GIT/config', /"\.GIT" segment/],
  ['.Git', 'a/.Git/HEAD', /"\.Git" segment/],
  ['.git trailing dot', '.git./config', /segment/],
  ['.git trailing space', '.git /config', /segment/],
  ['.git trailing dots and spaces', '.git . ./config', /segment/],
  ['.git NTFS stream', '.git::$INDEX_ALLOCATION/config', /segment/],
  ['git 8.3 short name', 'GIT~1/config', /segment/],
  ['fullwidth .git', '．ｇｉｔ/config', /segment/],
  ['fullwidth G in .git', '.Ｇit/config', /segment/],
  ['dotless i in .git', '.g\u0131t/config', /segment/],
  ['two-dot leader', '\u2025/etc', /folds to "\.\."/],
  ['fullwidth solidus', 'a\uff0f..', /folds to/],
  ['too long', 'a/'.repeat(MAX_PATH_BYTES / 2) + 'a', new RegExp(`longer than ${MAX_PATH_BYTES} bytes`)],
  ['too many bytes in multibyte text', 'é'.repeat(MAX_PATH_BYTES / 2 + 1), /longer than/],
  ['segment too long', `a/${'b'.repeat(MAX_SEGMENT_BYTES + 1)}`, /longer than 255 bytes/],
  ['segment too long in bytes', `a/${'é'.repeat(128)}`, /longer than 255 bytes/],
];

describe('validatePath', () => {
  describe.each(VALID.map((p) => [JSON.stringify(p).slice(0, 60), p]))(
    'when the path is %s',
    (_label, path) => {
      it('accepts it unchanged', () => {
        expect(validatePath(path)).toEqual({ ok: true, path });
      });
    },
  );

  describe.each(INVALID)('when the input is %s', (_label, input, reason) => {
    it('rejects it with a reason', () => {
      const result = validatePath(input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
    });
  });

  describe('when the input is percent-encoded', () => {
    it('keeps it literal and never decodes it', () => {
      expect(validatePath('%2E%2E/%2E%2E/etc/passwd')).toEqual({
        ok: true,
        path: '%2E%2E/%2E%2E/etc/passwd',
      });
      expect(validatePath('%2egit/config')).toEqual({ ok: true, path: '%2egit/config' });
    });
  });

  describe('when the reason is shown', () => {
    it('never echoes a long path back in full', () => {
      const result = validatePath(`${'x'.repeat(10_000)}`);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeLessThan(200);
    });
  });

  describe('when checked with arbitrary strings (property)', () => {
    it('is idempotent: a valid path validates to itself', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (input) => {
          const first = validatePath(input);
          if (first.ok) expect(validatePath(first.path)).toEqual(first);
        }),
        { numRuns: 2000 },
      );
    });

    it('never accepts a path with a "." or ".." segment, a backslash or a leading slash', () => {
      const part = fc.constantFrom('a', '.', '..', '', 'b.c', '\\', '.git', 'x y');
      fc.assert(
        fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), (parts) => {
          const input = parts.join('/');
          const result = validatePath(input);
          if (result.ok) {
            expect(input.startsWith('/')).toBe(false);
            expect(input.includes('\\')).toBe(false);
            for (const segment of input.split('/')) {
              expect(['', '.', '..']).not.toContain(segment);
              expect(segment.toLowerCase()).not.toBe('.git');
            }
          }
        }),
        { numRuns: 2000 },
      );
    });
  });
});

describe('isDotGitSegment', () => {
  describe.each([
    '.git',
    '.GIT',
    '.gIt',
    '.git.',
    '.git ',
    '.git. .',
    '.git:x',
    'git~1',
    'GIT~1',
    '．ｇｉｔ',
  ])('when the segment is %j', (segment) => {
    it('is the git directory', () => expect(isDotGitSegment(segment)).toBe(true));
  });
  describe.each(['git', '.gitignore', '.github', 'x.git', '.git-x', '.gits', 'git~2'])(
    'when the segment is %j',
    (segment) => {
      it('is not the git directory', () => expect(isDotGitSegment(segment)).toBe(false));
    },
  );
});

describe('foldSegment', () => {
  describe('when given case, NFD and compatibility variants', () => {
    it('folds them to one form', () => {
      expect(foldSegment('.GitHub')).toBe('.github');
      expect(foldSegment('Cafe\u0301')).toBe(foldSegment('café'));
      expect(foldSegment('ＣＬＡＵＤＥ.md')).toBe('claude.md');
      expect(foldSegment('AGENTS.md. ')).toBe('agents.md');
      expect(foldSegment('.g\u0131thub')).toBe('.github');
      expect(foldSegment('.\u017Fettings')).toBe('.settings');
    });
  });
});
