import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compilePerimeter,
  PerimeterSpecError,
  PROTECTED_ENTRIES,
  DEFAULT_TOOLS,
  validatePath,
} from '../../src/policy/index.js';
import { perimeterSpec } from '@perimeter/test-rigs';

const everything = compilePerimeter(perimeterSpec({ read: ['**'], write: ['**'] }));

describe('compilePerimeter', () => {
  describe('when the spec is invalid', () => {
    it.each([
      [{ name: 'Bad Name' }, /invalid name/],
      [{ write: ['/abs'] }, /write: "\/abs"/],
      [{ read: ['a/../b'] }, /read: "a\/..\/b"/],
      [{ allowProtected: ['!x'] }, /allow-protected/],
      [{ review: ['/docs/**'] }, /review: "\/docs\/\*\*"/],
      [{ branches: ['refs/heads/x'] }, /branches/],
      [{ tools: ['delete_repo' as never] }, /unknown tool "delete_repo"/],
    ])('throws for %j', (overrides, message) => {
      expect(() => compilePerimeter(perimeterSpec(overrides))).toThrow(message);
      expect(() => compilePerimeter(perimeterSpec(overrides))).toThrow(PerimeterSpecError);
    });
  });

  describe('when tools are listed', () => {
    it('exposes exactly those tools', () => {
      expect([...compilePerimeter(perimeterSpec({ tools: ['get_file'] })).tools]).toEqual(['get_file']);
      expect([...everything.tools]).toEqual([...DEFAULT_TOOLS]);
    });
  });
});

describe('Perimeter.canRead', () => {
  const reader = compilePerimeter(
    perimeterSpec({ read: ['src/**', 'docs/*.md', 'fixtures/**'], allowCredentialFiles: ['fixtures/*.pem'] }),
  );

  describe.each([
    ['src/a.ts', true, 'read glob "src/**"'],
    ['src/.eslintrc', true, 'read glob "src/**"'],
    ['docs/a.md', true, 'read glob "docs/*.md"'],
    ['docs/deep/a.md', false, 'no read glob matches'],
    ['test/a.ts', false, 'no read glob matches'],
    ['src/.env', false, 'credential file: .env'],
    ['src/deploy.key', false, 'credential file: *.key'],
    ['fixtures/server.pem', true, 'read glob "fixtures/**", allow-credential-files "fixtures/*.pem"'],
    ['fixtures/id_rsa', false, 'credential file: id_rsa*'],
    ['src/../secret', false, 'invalid path: ".." segment'],
    ['src/.git/config', false, 'invalid path: ".git" segment: the git directory is off limits'],
  ])('when the path is %j', (path, allowed, rule) => {
    it(`${allowed ? 'allows' : 'refuses'} it with rule ${rule}`, () => {
      expect(reader.canRead(path)).toEqual({ allowed, rule });
    });
  });

  describe('when only a write glob matches', () => {
    it('does not allow reading', () => {
      expect(compilePerimeter(perimeterSpec({ write: ['out/**'] })).canRead('out/a').allowed).toBe(false);
    });
  });
});

describe('Perimeter.canWrite', () => {
  const writer = compilePerimeter(
    perimeterSpec({
      write: ['src/**', '.github/workflows/**', 'docs/**'],
      allowProtected: ['.github/workflows/**'],
    }),
    'perimeters.yml',
  );

  describe.each([
    ['src/a.ts', true, 'write glob "src/**"'],
    ['src/CLAUDE.md', false, 'protected: CLAUDE.md'],
    ['src/.github/x.yml', false, 'protected: .github/**'],
    [
      '.github/workflows/ci.yml',
      true,
      'write glob ".github/workflows/**", allow-protected ".github/workflows/**"',
    ],
    ['docs/perimeters.yml', false, 'protected: perimeters.yml'],
    ['docs/.env', false, 'credential file: .env'],
    ['docs/.pypirc', false, 'credential file: .pypirc'],
    ['docs/id_rsa.bak', false, 'credential file: id_rsa*'],
    ['docs/.env~', false, 'credential file: .env (a copy)'],
    ['docs/.env.example', true, 'write glob "docs/**"'],
    ['.cargo/config.toml', false, 'no write glob matches'],
    ['test/a.ts', false, 'no write glob matches'],
    ['src//a.ts', false, 'invalid path: empty segment ("//" or a trailing "/")'],
  ])('when the path is %j', (path, allowed, rule) => {
    it(`${allowed ? 'allows' : 'refuses'} it with rule ${rule}`, () => {
      expect(writer.canWrite(path)).toEqual({ allowed, rule });
    });
  });

  describe('when allow-credential-files names a credential file', () => {
    it('lets it be written, as it lets it be read, and names the grant', () => {
      const p = compilePerimeter(
        perimeterSpec({ read: ['docs/**'], write: ['docs/**'], allowCredentialFiles: ['docs/.env'] }),
      );
      expect(p.canWrite('docs/.env')).toEqual({
        allowed: true,
        rule: 'write glob "docs/**", allow-credential-files "docs/.env"',
      });
      expect(p.canRead('docs/.env').allowed).toBe(true);
      expect(p.canWrite('docs/.pypirc').rule).toBe('credential file: .pypirc');
    });
  });

  describe('when a path is both protected and a credential file', () => {
    it('needs allow-protected and allow-credential-files', () => {
      const both = (spec: Partial<Parameters<typeof perimeterSpec>[0]>) =>
        compilePerimeter(perimeterSpec({ write: ['**'], ...spec })).canWrite('.npmrc');
      expect(both({}).rule).toBe('protected: .npmrc');
      expect(both({ allowProtected: ['.npmrc'] }).rule).toBe('credential file: .npmrc');
      expect(both({ allowProtected: ['.npmrc'], allowCredentialFiles: ['.npmrc'] })).toEqual({
        allowed: true,
        rule: 'write glob "**", allow-protected ".npmrc", allow-credential-files ".npmrc"',
      });
    });
  });

  describe('when a path is in a top-level dot directory', () => {
    it('is protected unless allow-protected names it, and names the directory', () => {
      const open = compilePerimeter(perimeterSpec({ write: ['**'] }));
      expect(open.canWrite('.changeset/brave-cats.md')).toEqual({
        allowed: false,
        rule: 'protected: .changeset/**, a top-level dot directory',
      });
      expect(open.canWrite('docs/.changeset/x.md').allowed).toBe(true);
      expect(open.canWrite('.prettierrc.json').allowed).toBe(true);
      const allowed = compilePerimeter(perimeterSpec({ write: ['**'], allowProtected: ['.changeset/**'] }));
      expect(allowed.canWrite('.changeset/brave-cats.md').allowed).toBe(true);
    });
  });

  describe('when allow-protected matches but no write glob does', () => {
    it('still refuses', () => {
      const p = compilePerimeter(perimeterSpec({ write: ['src/**'], allowProtected: ['.github/**'] }));
      expect(p.canWrite('.github/workflows/ci.yml')).toEqual({
        allowed: false,
        rule: 'no write glob matches',
      });
    });
  });

  describe('when allow-protected is matched case-sensitively', () => {
    it('does not let a case variant through', () => {
      const p = compilePerimeter(perimeterSpec({ write: ['**'], allowProtected: ['.github/**'] }));
      expect(p.canWrite('.github/x').allowed).toBe(true);
      expect(p.canWrite('.GitHub/x')).toEqual({ allowed: false, rule: 'protected: .github/**' });
    });
  });

  describe('when the config file has another name', () => {
    it('protects that file', () => {
      const p = compilePerimeter(perimeterSpec({ write: ['**'] }), 'config/agents.yml');
      expect(p.canWrite('config/agents.yml')).toEqual({
        allowed: false,
        rule: 'protected: config/agents.yml',
      });
    });
  });
});

describe('Perimeter.canReview', () => {
  const author = compilePerimeter(
    perimeterSpec({
      read: ['**'],
      write: ['src/**', '**'],
      review: ['docs/**', 'AGENTS.md', '.github/**', 'secrets/**'],
      deny: ['secrets/**'],
    }),
  );
  const narrow = compilePerimeter(perimeterSpec({ write: ['src/**'], review: ['docs/**'] }));

  describe.each([
    [author, 'AGENTS.md', true, 'review glob "AGENTS.md" (protected: AGENTS.md)'],
    [author, '.github/workflows/ci.yml', true, 'review glob ".github/**" (protected: .github/**)'],
    [narrow, 'docs/a.md', true, 'review glob "docs/**" (no write glob matches)'],
    [narrow, 'test/a.ts', false, 'no write glob matches; no review glob matches'],
    [author, 'src/a.ts', false, 'writable, no review needed (write glob "src/**")'],
    [author, 'secrets/key.txt', false, 'deny glob "secrets/**"'],
    [author, 'docs/../AGENTS.md', false, 'invalid path: ".." segment'],
  ])('when %#: %s', (perimeter, path, allowed, rule) => {
    it(`${allowed ? 'sends it to review' : 'does not'} (${rule})`, () => {
      expect(perimeter.canReview(path)).toEqual({ allowed, rule });
    });
  });

  it('never lets a review glob make a path writable', () => {
    expect(narrow.canWrite('docs/a.md').allowed).toBe(false);
  });
});

describe('Perimeter.allowsBranch', () => {
  describe('when branches is null', () => {
    it('allows any branch name', () => {
      expect(everything.allowsBranch('main')).toBe(true);
      expect(everything.allowsBranch('')).toBe(false);
    });
  });
  describe('when branches are listed', () => {
    it('allows only matching branches', () => {
      const p = compilePerimeter(perimeterSpec({ branches: ['agent/**', 'main'] }));
      expect(p.allowsBranch('agent/x/y')).toBe(true);
      expect(p.allowsBranch('main')).toBe(true);
      expect(p.allowsBranch('mainline')).toBe(false);
      expect(p.allowsBranch('release')).toBe(false);
    });
  });
});

const segment = fc.constantFrom('src', 'test', 'docs', 'a', 'B', '.x', 'lib', 'x.md', 'y.ts', 'café', 'é');
const relPath = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));

function randomCase(text: string, flips: boolean[]): string {
  return [...text].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join('');
}

describe('when a path is spelled in another Unicode normal form than a rule', () => {
  const p = compilePerimeter(perimeterSpec({ read: ['**'], write: ['docs/**'], deny: ['docs/café.md'] }));

  it('denies the decomposed spelling of a composed denial, for reads and writes', () => {
    const decomposed = 'docs/cafe\u0301.md';
    expect(p.canWrite(decomposed)).toEqual({
      allowed: false,
      rule: 'deny glob "docs/café.md" (spelled in another Unicode normal form)',
    });
    expect(p.canRead(decomposed).allowed).toBe(false);
  });

  it('grants either spelling under a glob written in one', () => {
    const q = compilePerimeter(perimeterSpec({ write: ['café/**'] }));
    expect(q.canWrite('café/a.md').allowed).toBe(true);
    expect(q.canWrite('cafe\u0301/a.md').allowed).toBe(true);
  });
});

describe('properties', () => {
  describe('when write globs are directory or file globs', () => {
    it('never allows writing outside them', () => {
      const writeGlob = fc.oneof(
        segment.map((s) => ({ glob: `${s}/**`, covers: (p: string) => p.startsWith(`${s}/`) })),
        fc
          .tuple(segment, segment)
          .map(([a, b]) => ({ glob: `${a}/${b}`, covers: (p: string) => p === `${a}/${b}` })),
      );
      fc.assert(
        fc.property(
          fc.uniqueArray(writeGlob, { selector: (g) => g.glob, maxLength: 4 }),
          relPath,
          (globs, path) => {
            const p = compilePerimeter(perimeterSpec({ write: globs.map((g) => g.glob) }));
            if (p.canWrite(path).allowed) expect(globs.some((g) => g.covers(path))).toBe(true);
            else if (globs.some((g) => g.covers(path))) expect(p.canWrite(path).rule).toMatch(/^protected: /);
          },
        ),
        { numRuns: 1000 },
      );
    });
  });

  describe('when a path contains a protected name in any case or normal form', () => {
    // the top-level dot directories' entry is anchored: its own test is above
    const protectedName = fc.constantFrom(
      ...PROTECTED_ENTRIES.filter((e) => !e.startsWith('/')),
      'perimeters.yml',
    );
    const variant = fc.tuple(
      protectedName,
      fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
      fc.constantFrom('NFC', 'NFD', 'NFKC', 'NFKD') as fc.Arbitrary<'NFC' | 'NFD' | 'NFKC' | 'NFKD'>,
      fc.array(segment, { maxLength: 2 }),
      fc.array(segment, { maxLength: 2 }),
    );

    it('is never writable without allow-protected, and writable with it', () => {
      const open = compilePerimeter(perimeterSpec({ write: ['**'] }));
      // some protected names are credential files too (`.npmrc`, `.envrc`): those need both grants
      const allowed = compilePerimeter(
        perimeterSpec({ write: ['**'], allowProtected: ['**'], allowCredentialFiles: ['**'] }),
      );
      fc.assert(
        fc.property(variant, ([entry, flips, form, before, after]) => {
          const name = randomCase(entry.replace('/**', ''), flips).normalize(form);
          const path = [...before, name, ...after].join('/');
          expect(validatePath(path).ok).toBe(true);
          const decision = open.canWrite(path);
          expect(decision.allowed).toBe(false);
          expect(decision.rule).toMatch(/^protected: /);
          expect(allowed.canWrite(path).allowed).toBe(true);
        }),
        { numRuns: 1000 },
      );
    });

    it('keeps protected names with accents protected in either normal form', () => {
      const p = compilePerimeter(perimeterSpec({ write: ['**'] }), 'règles/périmètres.yml');
      for (const form of ['NFC', 'NFD'] as const) {
        for (const path of ['règles/périmètres.yml', 'x/RÈGLES/Périmètres.yml']) {
          expect(p.canWrite(path.normalize(form)).allowed).toBe(false);
        }
      }
    });
  });

  describe('when a path fails validation', () => {
    it('is never readable or writable, even under "**"', () => {
      const nasty = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc
          .array(fc.constantFrom('a', '.', '..', '', '\\', '.git', '.GIT', '\u0000', '\u200b', '/'), {
            maxLength: 6,
          })
          .map((parts) => parts.join('/')),
      );
      fc.assert(
        fc.property(nasty, (input) => {
          const check = validatePath(input);
          if (check.ok) return;
          for (const decision of [everything.canRead(input), everything.canWrite(input)]) {
            expect(decision).toEqual({ allowed: false, rule: `invalid path: ${check.reason}` });
          }
        }),
        { numRuns: 2000 },
      );
    });
  });
});

describe('Perimeter.allowsSecretsIn', () => {
  it('names the allow-secrets-in glob, read as git reads globs', () => {
    const p = compilePerimeter(
      perimeterSpec({ write: ['**'], allowSecretsIn: ['test/fixtures/**', 'a[[:punct:]]b'] }),
    );
    expect(p.allowsSecretsIn('test/fixtures/keys.txt')).toBe('test/fixtures/**');
    expect(p.allowsSecretsIn('a-b')).toBe('a[[:punct:]]b');
    expect(p.allowsSecretsIn('a/b')).toBeNull();
    expect(p.allowsSecretsIn('test/fixtures/../x')).toBeNull();
  });
});
