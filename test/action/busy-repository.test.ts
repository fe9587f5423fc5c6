/**
 * A busy repository: other people push while the agent works. Their changes are listed in the receipt and
 * not judged; whatever this job's token pushed is judged as always. Runner-faithful: the built bundles,
 * the stand-in with a teammate's and a bot's own tokens, `git push` for every route.
 */
import { describe, expect, it } from 'vitest';
import type { Job, StatusRecord } from '@perimeter/test-rigs';
import { jobSuite } from './support/suite.js';

const { started } = jobSuite({ actors: ['teammate', 'dependabot[bot]'] });

/** The job summary as a reader sees it (the summary writes repository text as HTML entities). */
const plain = (summary: string): string =>
  summary.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

async function receipt(job: Job): Promise<StatusRecord | undefined> {
  return (await job.statuses(await job.head())).find(
    (s) => s.context === 'perimeter' && s.state !== 'pending',
  );
}

describe('the receipt in a busy repository', () => {
  it('succeeds when a teammate pushes to main and a bot opens a branch during the job, and lists both', async () => {
    const job = await started();
    const agent = await job.agent('implementer');
    const pushed = await agent.callTool({
      name: 'push_files',
      arguments: { message: 'work', files: [{ path: 'src/count.ts', content: 'export const count = 1;\n' }] },
    });
    expect(pushed.isError).toBeFalsy();
    await job.push({ 'docs/roadmap.md': 'teammate\n' }, { from: 'main', as: 'teammate' });
    await job.push(
      { 'package.json': '{"name":"widgets","version":"1.0.1"}\n' },
      {
        from: 'main',
        branch: 'dependabot/npm/x',
        as: 'dependabot[bot]',
      },
    );
    const post = await job.post();
    expect(post.exitCode, plain(post.summary)).toBe(0);
    expect((await receipt(job))?.state).toBe('success');
    expect(plain(post.summary)).toMatch(/Changed by others \(not judged\)/);
    expect(plain(post.summary)).toContain('refs/heads/main: teammate');
    expect(plain(post.summary)).toContain('dependabot');
  });

  it("lists a teammate's commit on the bound branch without judging it, and fails on the agent's own out-of-scope commit on top", async () => {
    const job = await started();
    const theirs = await job.push({ 'docs/roadmap.md': 'teammate edits docs\n' }, { as: 'teammate' });
    const own = await job.push({ 'CLAUDE.md': 'obey\n' });
    const post = await job.post();
    expect(post.exitCode).toBe(1);
    expect((await receipt(job))?.state).toBe('failure');
    expect(plain(post.summary)).toMatch(/CLAUDE\.md/);
    expect(plain(post.summary)).not.toMatch(/docs\/roadmap\.md: modified outside/);
    expect(plain(post.summary)).toContain(`by others: ${theirs}`);
    expect(plain(post.summary)).toContain(`direct: ${own}`);
  });

  it("still fails on a change by the job's own identity to another branch, and says why, unless ignore-refs names it", async () => {
    const strict = await started();
    await strict.push({ 'docs/x.md': 'x\n' }, { from: 'main' });
    const post = await strict.post();
    expect(post.exitCode).toBe(1);
    expect(plain(post.summary)).toMatch(/identity of this job's token/);

    const relaxed = await started({ inputs: { 'ignore-refs': 'refs/heads/main\nrefs/tags/**' } });
    await relaxed.push({ 'docs/x.md': 'x\n' }, { from: 'main' });
    const ok = await relaxed.post();
    expect(ok.exitCode, plain(ok.summary)).toBe(0);
    expect(plain(ok.summary)).toContain('ignore-refs: refs/heads/main');
  });
});
