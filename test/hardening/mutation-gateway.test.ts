/**
 * The gateway's small enforcement functions pinned in-process (bearer and Host checks, path refusals, the
 * readable view of a tree), for the mutation run; their HTTP behaviour is in test/gateway/server.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { bearerMatches, loopbackRequest, secretDigest } from '../../src/gateway/serving/guard.js';
import { absent, requirePath } from '../../src/gateway/tools/paths.js';
import { parentOf, TreeIndex } from '../../src/gateway/reads/tree-index.js';
import type { TreeEntry } from '../../src/github/upstream.js';
import { compilePerimeter, parseConfig } from '../../src/policy/index.js';

describe('bearerMatches', () => {
  const digest = secretDigest('s3cret-value-0123456789');
  it.each([
    ['Bearer s3cret-value-0123456789', true],
    ['bearer s3cret-value-0123456789', true],
    ['BEARER   s3cret-value-0123456789  ', true],
    ['Bearer s3cret-value-012345678', false],
    ['Bearer s3cret-value-0123456789x', false],
    ['Bearer  ', false],
    ['Bearer', false],
    ['Basic s3cret-value-0123456789', false],
    ['s3cret-value-0123456789', false],
    ['Bearer s3cret-value-0123456789 extra', false],
    ['xBearer s3cret-value-0123456789', false],
    ['', false],
    [undefined, false],
  ])('%j -> %s', (header, expected) => {
    expect(bearerMatches(header, digest)).toBe(expected);
  });

  it('does not let an empty header through for an empty secret', () => {
    expect(bearerMatches(undefined, secretDigest(''))).toBe(false);
    expect(bearerMatches('', secretDigest(''))).toBe(false);
  });
});

describe('loopbackRequest', () => {
  it.each([
    ['127.0.0.1', undefined, true],
    ['127.0.0.1:8080', undefined, true],
    ['localhost', undefined, true],
    ['LOCALHOST:1', undefined, true],
    ['[::1]:65535', undefined, true],
    ['[::1]', undefined, true],
    ['127.0.0.1:123456', undefined, false],
    ['127.0.0.1:', undefined, false],
    ['127.0.0.1.evil.example', undefined, false],
    ['evil.example', undefined, false],
    ['xlocalhost', undefined, false],
    ['127.0.0.2', undefined, false],
    [undefined, undefined, false],
    ['localhost', 'http://localhost:3000', true],
    ['localhost', 'https://127.0.0.1', true],
    ['localhost', 'http://evil.example', false],
    ['localhost', 'http://localhost.evil.example', false],
    ['localhost', 'null', false],
    ['localhost', 'file:///etc', false],
    ['localhost', 'ftp://localhost', false],
    ['localhost', 'javascript:alert(1)', false],
  ])('Host %j, Origin %j -> %s', (host, origin, expected) => {
    expect(loopbackRequest(host, origin)).toBe(expected);
  });
});

describe('requirePath and absent', () => {
  it('returns a valid path as it is', () => {
    expect(requirePath('src/a.ts')).toBe('src/a.ts');
  });

  it('refuses an invalid path quoting it and the reason, as a refusal', () => {
    expect(() => requirePath('a//b')).toThrow('invalid path "a//b": empty segment ("//" or a trailing "/")');
    try {
      requirePath('/x');
    } catch (error) {
      expect((error as { kind: string }).kind).toBe('refused');
    }
  });

  it('answers hidden and missing alike', () => {
    const error = absent('docs/x');
    expect(error.message).toBe('"docs/x" not found');
    expect(error.kind).toBe('absent');
  });
});

describe('TreeIndex', () => {
  const entry = (path: string, type: TreeEntry['type'] = 'blob'): TreeEntry =>
    ({ path, type, mode: type === 'tree' ? '040000' : '100644', sha: `${path}-sha`, size: 1 }) as TreeEntry;
  const entries = [
    entry('src', 'tree'),
    entry('src/a.ts'),
    entry('src/deep', 'tree'),
    entry('src/deep/b.ts'),
    entry('docs', 'tree'),
    entry('docs/secret.md'),
    entry('mixed', 'tree'),
    entry('mixed/open.md'),
    entry('mixed/closed.md'),
    entry('README.md'),
  ];
  const perimeter = compilePerimeter(
    parseConfig(`version: 1
perimeters:
  p:
    read: ["src/deep/**", "mixed/open.md", "README.md"]
`).perimeters[0]!,
  );

  it('indexes by path and by directory', () => {
    const index = new TreeIndex('t', entries);
    expect(index.sha).toBe('t');
    expect(index.get('src/deep/b.ts')?.sha).toBe('src/deep/b.ts-sha');
    expect(index.get('nope')).toBeUndefined();
    expect(index.children('').map((e) => e.path)).toEqual(['src', 'docs', 'mixed', 'README.md']);
    expect(index.children('src').map((e) => e.path)).toEqual(['src/a.ts', 'src/deep']);
    expect(index.children('none')).toEqual([]);
    expect([...index.entries()]).toHaveLength(entries.length);
  });

  it('shows readable files and only the directories that hold one', () => {
    const view = new TreeIndex('t', entries).readable(perimeter);
    expect([...view.files].sort()).toEqual(['README.md', 'mixed/open.md', 'src/deep/b.ts']);
    expect([...view.dirs].sort()).toEqual(['', 'mixed', 'src', 'src/deep']);
  });

  it('computes the view once per perimeter', () => {
    const index = new TreeIndex('t', entries);
    expect(index.readable(perimeter)).toBe(index.readable(perimeter));
  });

  it('finds parents', () => {
    expect(parentOf('a/b/c')).toBe('a/b');
    expect(parentOf('a')).toBe('');
  });
});
