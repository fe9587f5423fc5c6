/**
 * Publishing, as far as GitHub allows it locally: the one command (`npm run release -- X.Y.Z`, run in a clone of
 * the stand-in's repository, whose origin is that bare repository) tags and pushes vX.Y.Z, then
 * .github/workflows/release.yml runs whole on the runner emulation on that tag's push event: it checks the
 * tagged commit and moves the major tag v1 there through the stand-in's API. A tag whose dist/ is stale fails
 * the workflow and v1 stays where it was.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, type Job } from '@perimeter/test-rigs';
import { sourceDigest } from '../../scripts/source-digest.mjs';
import { parseWorkflow, runWorkflow, triggers, type WorkflowRun } from '../agents/workflow-runner.js';

const WORKFLOW = readFileSync(join(REPO_ROOT, '.github', 'workflows', 'release.yml'), 'utf8');
const SCRIPT = join(REPO_ROOT, 'scripts', 'release.mjs');
const VERSION = '1.2.3';
const TAG = `refs/tags/v${VERSION}`;

/** A repository shaped like this one at release VERSION: sources, the release scripts, bundles and their digest. */
function releasable(): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify({ name: 'perimeter', version: VERSION })}\n`,
    'CHANGELOG.md': `# Changelog\n\n## [Unreleased]\n\n## [${VERSION}] - 2026-12-06\n\n- a release\n`,
    'src/index.ts': 'export {};\n',
    'package-lock.json': '{}\n',
    'scripts/release.mjs': readFileSync(SCRIPT, 'utf8'),
    'scripts/source-digest.mjs': readFileSync(join(REPO_ROOT, 'scripts', 'source-digest.mjs'), 'utf8'),
    '.github/workflows/release.yml': WORKFLOW,
  };
  for (const entry of ['main', 'post', 'verify', 'apply', 'gateway', 'cli'])
    files[`dist/${entry}/index.js`] = '// bundle\n';
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-releasable-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    files['dist/sources.json'] = `${JSON.stringify({ digest: sourceDigest(dir) })}\n`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return files;
}

const sh = (cwd: string, command: string, ...args: string[]): string =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * The release as a maintainer makes it, in a clone of the stand-in's repository: v1 at an earlier commit, a
 * commit after it, then the release of that commit, by the command or (`stale`) by hand after a source change
 * the bundles do not have. Returns the commit the release tag points to and the one v1 started at.
 */
async function release(job: Job, stale: boolean): Promise<{ released: string; before: string }> {
  const work = mkdtempSync(join(tmpdir(), 'perimeter-release-clone-'));
  const git = (...args: string[]) =>
    sh(work, 'git', '-c', 'user.name=Maintainer', '-c', 'user.email=m@example.com', ...args);
  try {
    git('clone', '-q', job.bare, '.');
    const before = git('rev-parse', 'HEAD');
    git('tag', 'v1');
    git('push', '-q', 'origin', 'v1');
    writeFileSync(join(work, stale ? 'src/index.ts' : 'README.md'), 'export const changed = 1;\n');
    git('add', '-A');
    git('commit', '-qm', 'after the last release');
    git('push', '-q', 'origin', 'main');
    if (stale) {
      git('tag', '-a', `v${VERSION}`, '-m', 'by hand');
      git('push', '-q', 'origin', `v${VERSION}`);
    } else {
      expect(sh(work, process.execPath, SCRIPT, VERSION)).toContain(`Tagged and pushed v${VERSION}`);
    }
    return { released: git('rev-parse', 'HEAD'), before };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function runRelease(stale: boolean): Promise<{ run: WorkflowRun; released: string; before: string }> {
  let commits = { released: '', before: '' };
  const run = await runWorkflow(parseWorkflow(WORKFLOW), {
    actionDir: REPO_ROOT,
    files: releasable(),
    inputs: {},
    secrets: {},
    beforeJob: async (job) => {
      commits = await release(job, stale);
    },
    event: async () => ({ name: 'push', payload: { ref: TAG }, ref: TAG }),
  });
  return { run, ...commits };
}

const peeled = async (run: WorkflowRun, ref: string): Promise<string> =>
  sh(run.standIn.bare, 'git', 'rev-parse', `${ref}^{commit}`);
const report = (run: WorkflowRun): string =>
  run.steps.map((s) => `${s.job}/${s.name}: ${s.outcome}\n${s.log}`).join('\n');

describe('the release workflow, whole on the runner emulation', () => {
  it('runs on a version tag only', () => {
    const { on } = parseWorkflow(WORKFLOW);
    const push = (ref: string) => triggers(on, { name: 'push', payload: { ref }, ref });
    expect(push(TAG)).toBe(true);
    expect(push('refs/tags/v1')).toBe(false);
    expect(push('refs/heads/main')).toBe(false);
  });

  it('after `npm run release -- 1.2.3`, checks the tagged commit and moves v1 to it', async () => {
    const { run, released, before } = await runRelease(false);
    try {
      expect(run.results, report(run)).toEqual({ 'major-tag': 'success' });
      expect(released).not.toBe(before);
      expect(await peeled(run, TAG)).toBe(released);
      expect(await peeled(run, 'refs/tags/v1')).toBe(released);
      expect(report(run)).toContain(`v${VERSION}: package.json, CHANGELOG.md and dist/ agree`);
    } finally {
      await run.standIn.close();
    }
  });

  it('refuses a tag whose dist/ was not built from its sources, and leaves v1 where it was', async () => {
    const { run, before } = await runRelease(true);
    try {
      expect(run.results, report(run)).toEqual({ 'major-tag': 'failure' });
      expect(report(run)).toContain('dist/ was not built from these sources');
      expect(run.steps.find((s) => s.name.startsWith('Move the major tag'))?.outcome).toBe('skipped');
      expect(await peeled(run, 'refs/tags/v1')).toBe(before);
    } finally {
      await run.standIn.close();
    }
  });
});
