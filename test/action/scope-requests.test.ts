/**
 * Scope requests as a runner runs the built bundles: an agent asks for a path it may not write, and the post
 * step's job summary shows the request and perimeters.yml with the glob added, which `perimeter check`
 * accepts. Nothing is granted during the job.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answerOf, FILES, text } from '@perimeter/test-rigs';
import { parseConfig } from '../../src/policy/index.js';
import { makeCheckout, runCli } from '../cli/run-cli.js';
import { jobSuite } from './support/suite.js';

const { started } = jobSuite({ inputs: { perimeters: 'implementer' } });

describe('scope requests', { timeout: 300_000 }, () => {
  it('appear in the summary as a perimeters.yml change that perimeter check accepts, granting nothing', async () => {
    const j = await started();
    const agent = await j.agent('implementer');
    const asked = await agent.callTool({
      name: 'request_scope',
      arguments: { path: 'docs/**', reason: 'the task updates the roadmap @everyone' },
    });
    expect(asked.isError, text(asked)).toBeFalsy();
    expect(answerOf(asked as CallToolResult)).toMatchObject({ recorded: true });
    const refused = await agent.callTool({
      name: 'push_files',
      arguments: { message: 'Roadmap', files: [{ path: 'docs/roadmap.md', content: '# Later\n' }] },
    });
    expect(refused.isError).toBe(true);

    const post = await j.post();
    expect(post.exitCode, post.log + post.stderr).toBe(0);
    expect(post.summary).toContain('### Scope requests (1)');
    expect(post.summary).toContain(
      '| implementer | docs/&#42;&#42; | the task updates the roadmap &#64;<!-- -->everyone |',
    );
    const proposal = /```yaml\n([\s\S]*?)\n```/.exec(post.summary)?.[1];
    expect(proposal).toContain('docs/**');
    const dir = makeCheckout({ ...FILES, 'perimeters.yml': `${proposal}\n` });
    try {
      const check = await runCli(['check'], dir);
      expect(check.stderr).toBe('');
      expect(check.code).toBe(0);
      expect(check.stdout).toMatch(/implementer\s+reads \d+, writes 3;/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("grows only the asker's write list when an anchor shares it with a perimeter bound to main", async () => {
    const shared = `version: 1
perimeters:
  implementer:
    read: ["src/**", "test/**", "README.md", "package.json"]
    write: &code ["src/**"]
  release:
    read: ["**"]
    write: *code
    branches: [main]
`;
    const j = await started({ files: { ...FILES, 'perimeters.yml': shared } });
    const agent = await j.agent('implementer');
    const asked = await agent.callTool({
      name: 'request_scope',
      arguments: { path: 'docs/**', reason: 'the roadmap' },
    });
    expect(asked.isError, text(asked)).toBeFalsy();
    const post = await j.post();
    expect(post.exitCode, post.log + post.stderr).toBe(0);
    const proposal = /```yaml\n([\s\S]*?)\n```/.exec(post.summary)?.[1] ?? '';
    const writes = Object.fromEntries(parseConfig(proposal).perimeters.map((p) => [p.name, p.write]));
    expect(writes).toEqual({ implementer: ['src/**', 'docs/**'], release: ['src/**'] });
  });
});
