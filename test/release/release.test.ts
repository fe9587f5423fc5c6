import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sourceDigest } from '../../scripts/source-digest.mjs';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'release.mjs');
let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
const release = (...args: string[]) =>
  spawnSync(process.execPath, [SCRIPT, ...args], { cwd: dir, encoding: 'utf8' });

function write(path: string, text: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** A checkout shaped like this repository: sources, a lockfile, every bundle and their digest. */
function releasable(version: string, changelog: string): void {
  write('package.json', `${JSON.stringify({ name: 'perimeter', version })}\n`);
  write('CHANGELOG.md', changelog);
  for (const entry of ['main', 'post', 'verify', 'apply', 'gateway', 'cli'])
    write(`dist/${entry}/index.js`, '// bundle\n');
  write('dist/sources.json', `${JSON.stringify({ digest: sourceDigest(dir) })}\n`);
  git('add', '-A');
  git('commit', '-q', '-m', `release ${version}`);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'perimeter-release-'));
  git('init', '-q', '-b', 'main');
  write('src/index.ts', 'export {};\n');
  write('package-lock.json', '{}\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/release.mjs', () => {
  it('tags vX.Y.Z and pushes that tag to origin, and leaves the major tag to the release workflow', () => {
    const origin = mkdtempSync(join(tmpdir(), 'perimeter-release-origin-'));
    try {
      execFileSync('git', ['init', '-q', '--bare', origin]);
      git('remote', 'add', 'origin', origin);
      releasable('1.2.0', '# Changelog\n\n## [1.2.0] - 2026-12-02\n\n- first\n');
      const first = release('1.2.0');
      expect(first.stderr).toBe('');
      expect(first.status).toBe(0);
      expect(first.stdout).toContain(
        'Tagged and pushed v1.2.0. The release workflow checks dist/ and moves v1',
      );
      const head = git('rev-parse', 'HEAD');
      expect(git('rev-parse', 'v1.2.0^{commit}')).toBe(head);
      const remote = (ref: string) =>
        execFileSync('git', ['--git-dir', origin, 'rev-parse', ref], { encoding: 'utf8' }).trim();
      expect(remote('v1.2.0^{commit}')).toBe(head);
      expect(git('tag', '--list', 'v1')).toBe('');
      expect(spawnSync('git', ['--git-dir', origin, 'rev-parse', '--verify', '-q', 'v1']).status).not.toBe(0);
    } finally {
      rmSync(origin, { recursive: true, force: true });
    }
  });

  it('takes the tag back when the push fails, saying why', () => {
    releasable('1.2.0', '## [1.2.0] - 2026-12-02\n');
    const result = release('1.2.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/could not push v1\.2\.0 to origin \(.+\); the tag was removed again/);
    expect(git('tag', '--list')).toBe('');
  });

  it('checks a tagged checkout as the release workflow does (--check-tag)', () => {
    releasable('1.2.0', '## [1.2.0] - 2026-12-02\n');
    const ok = release('--check-tag', '1.2.0');
    expect(ok.stdout).toBe('v1.2.0: package.json, CHANGELOG.md and dist/ agree\n');
    expect(ok.status).toBe(0);
    write('src/index.ts', 'export const stale = 1;\n');
    const stale = release('--check-tag', '1.2.0');
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('dist/ was not built from these sources');
    expect(release('--check-tag', 'v1.2.0').stderr).toContain('expected a version X.Y.Z, got "v1.2.0"');
  });

  it('refuses, naming each reason, and tags nothing when dist/, the changelog or the version is behind', () => {
    releasable('1.2.0', '# Changelog\n\n## [Unreleased]\n');
    write('src/index.ts', 'export const changed = 1;\n');
    git('commit', '-q', '-am', 'a source change after the last bundle');
    const result = release('1.3.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('package.json says version 1.2.0');
    expect(result.stderr).toContain('CHANGELOG.md has no "## [1.3.0] - YYYY-MM-DD" section');
    expect(result.stderr).toContain('dist/ was not built from these sources');
    expect(git('tag', '--list')).toBe('');
  });

  it('refuses a dirty tree, an existing tag and another branch', () => {
    releasable('1.2.0', '## [1.2.0] - 2026-12-02\n');
    git('tag', 'v1.2.0');
    const again = release('1.2.0');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('the tag v1.2.0 exists already');
    git('checkout', '-q', '-b', 'topic');
    write('notes.txt', 'x\n');
    const elsewhere = release('1.2.0', '--dry-run');
    expect(elsewhere.stderr).toContain('this checkout is on topic');
    expect(elsewhere.stderr).toContain('uncommitted changes');
  });
});
