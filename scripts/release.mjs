#!/usr/bin/env node
// `npm run release -- X.Y.Z [--dry-run]`: releases the action after the checks RELEASING.md lists: tags HEAD
// vX.Y.Z and pushes that tag to origin. The release workflow (.github/workflows/release.yml) then checks the
// tag's dist/ again on GitHub and moves the major tag vX; nothing moves vX locally.
// `node scripts/release.mjs --check-tag X.Y.Z`: the workflow's check of a tagged checkout.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceDigest } from './source-digest.mjs';

const ENTRIES = ['main', 'post', 'verify', 'apply', 'gateway', 'cli'];

function git(root, ...args) {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Why the checkout at `root` is not release `version`: its package.json, its changelog, its dist/. */
export function tagProblems(root, version) {
  if (!/^\d+\.\d+\.\d+$/.test(version)) return [`expected a version X.Y.Z, got ${JSON.stringify(version)}`];
  const problems = [];
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
  return problems;
}

/** Every reason not to tag `version` at the checkout in `root`, in the order a person would fix them. */
export function releaseProblems(root, version) {
  if (!/^\d+\.\d+\.\d+$/.test(version)) return [`expected a version X.Y.Z, got ${JSON.stringify(version)}`];
  const problems = [];
  const branch = git(root, 'rev-parse', '--abbrev-ref', 'HEAD');
  if (branch !== 'main') problems.push(`releases are tagged on main; this checkout is on ${branch}`);
  if (git(root, 'status', '--porcelain') !== '')
    problems.push('the working tree has uncommitted changes: commit or stash them');
  problems.push(...tagProblems(root, version));
  if (git(root, 'tag', '--list', `v${version}`) !== '') problems.push(`the tag v${version} exists already`);
  return problems;
}

/** Tags HEAD `vX.Y.Z` (annotated) and pushes the tag to origin; the release workflow moves the major tag. */
export function tagRelease(root, version) {
  git(root, 'tag', '-a', `v${version}`, '-m', `Perimeter ${version}`);
  try {
    git(root, 'push', 'origin', `refs/tags/v${version}`);
  } catch (error) {
    // not pushed: take the tag back, so the next attempt starts from the same place
    git(root, 'tag', '-d', `v${version}`);
    const why = String(error.stderr ?? error.message)
      .trim()
      .split('\n')
      .at(-1);
    throw new Error(`could not push v${version} to origin (${why}); the tag was removed again`, {
      cause: error,
    });
  }
}

function main(argv) {
  if (argv[0] === '--check-tag') {
    if (argv.length !== 2) return usage();
    const problems = tagProblems(process.cwd(), argv[1]);
    if (problems.length > 0) {
      process.stderr.write(`Not a release:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
      return 1;
    }
    process.stdout.write(`v${argv[1]}: package.json, CHANGELOG.md and dist/ agree\n`);
    return 0;
  }
  const dryRun = argv.includes('--dry-run');
  const [version, ...rest] = argv.filter((a) => a !== '--dry-run');
  if (version === undefined || rest.length > 0 || version.startsWith('-')) return usage();
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
  tagRelease(root, version);
  process.stdout.write(
    `Tagged and pushed v${version}. The release workflow checks dist/ and moves v${version.split('.')[0]} to it;\n` +
      'then publish a GitHub release from the tag (RELEASING.md).\n',
  );
  return 0;
}

function usage() {
  process.stderr.write(
    'Usage: npm run release -- X.Y.Z [--dry-run]\n       node scripts/release.mjs --check-tag X.Y.Z\n',
  );
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`release: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
