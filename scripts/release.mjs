#!/usr/bin/env node
// `node scripts/release.mjs X.Y.Z [--dry-run]`: tags a release of the action, after the checks RELEASING.md
// lists. It never pushes: it prints the two push commands, so a person sends them.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceDigest } from './source-digest.mjs';

const ENTRIES = ['main', 'post', 'verify', 'apply', 'gateway', 'cli'];

function git(root, ...args) {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Every reason not to tag `version` at the checkout in `root`, in the order a person would fix them. */
export function releaseProblems(root, version) {
  const problems = [];
  if (!/^\d+\.\d+\.\d+$/.test(version)) return [`expected a version X.Y.Z, got ${JSON.stringify(version)}`];
  const branch = git(root, 'rev-parse', '--abbrev-ref', 'HEAD');
  if (branch !== 'main') problems.push(`releases are tagged on main; this checkout is on ${branch}`);
  if (git(root, 'status', '--porcelain') !== '')
    problems.push('the working tree has uncommitted changes: commit or stash them');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (pkg.version !== version)
    problems.push(
      `package.json says version ${pkg.version}: set it to ${version} (npm version ${version} --no-git-tag-version)`,
    );
  const changelog = existsSync(join(root, 'CHANGELOG.md'))
    ? readFileSync(join(root, 'CHANGELOG.md'), 'utf8')
    : '';
  if (!new RegExp(`^## \\[${version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm').test(changelog))
    problems.push(`CHANGELOG.md has no "## [${version}] - YYYY-MM-DD" section: move Unreleased under it`);
  const committed = (() => {
    try {
      return JSON.parse(readFileSync(join(root, 'dist', 'sources.json'), 'utf8')).digest ?? null;
    } catch {
      return null;
    }
  })();
  const missing = ENTRIES.filter((e) => !existsSync(join(root, 'dist', e, 'index.js')));
  if (committed !== sourceDigest(root) || missing.length > 0)
    problems.push('dist/ was not built from these sources: run npm run bundle and commit dist/');
  if (git(root, 'tag', '--list', `v${version}`) !== '') problems.push(`the tag v${version} exists already`);
  return problems;
}

/** Tags HEAD `vX.Y.Z` (annotated) and moves the major tag `vX` to it; returns the push commands. */
export function tagRelease(root, version) {
  const major = `v${version.split('.')[0]}`;
  git(root, 'tag', '-a', `v${version}`, '-m', `Perimeter ${version}`);
  git(root, 'tag', '-f', '-a', major, '-m', `Perimeter ${version}`, `v${version}^{commit}`);
  return [`git push origin v${version}`, `git push --force origin ${major}`];
}

function main(argv) {
  const dryRun = argv.includes('--dry-run');
  const [version, ...rest] = argv.filter((a) => a !== '--dry-run');
  if (version === undefined || rest.length > 0) {
    process.stderr.write('Usage: node scripts/release.mjs X.Y.Z [--dry-run]\n');
    return 2;
  }
  const root = git(process.cwd(), 'rev-parse', '--show-toplevel');
  const problems = releaseProblems(root, version);
  if (problems.length > 0) {
    process.stderr.write(`Not released:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 1;
  }
  if (dryRun) {
    process.stdout.write(`v${version} can be tagged at ${git(root, 'rev-parse', '--short', 'HEAD')}\n`);
    return 0;
  }
  const push = tagRelease(root, version);
  process.stdout.write(`Tagged v${version}. Publish it with:\n${push.map((c) => `  ${c}`).join('\n')}\n`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`release: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
