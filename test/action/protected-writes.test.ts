/**
 * Writes the repository's tools would run are protected (issue #42), as a runner runs the job: a perimeter
 * that may write everything still may not write a credential file (hidden on read, so refused on write), the
 * configuration package managers and build tools read (`.cargo/config.toml`), or a top-level dot directory,
 * through the gateway or around it; the gateway and the post check decide by the same rule.
 */
import { describe, expect, it } from 'vitest';
import { FILES, text } from '@perimeter/test-rigs';
import { jobSuite } from './support/suite.js';

const WIDE = `version: 1
perimeters:
  wide:
    read: ["**"]
    write: ["**"]
`;
const { started } = jobSuite({ files: { ...FILES, 'perimeters.yml': WIDE } });

/** The summary's text with its character references read back (it escapes what a path could inject). */
const plain = (markdown: string): string =>
  markdown.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

const WRITES: Array<[string, string]> = [
  ['src/.env', 'credential file: .env'],
  ['.pypirc', 'credential file: .pypirc'],
  ['.cargo/config.toml', 'protected: .cargo/config.toml, tools family'],
  ['.changeset/brave-cats.md', 'protected: .changeset/**, a top-level dot directory'],
];

describe('writes the repository tools run', { timeout: 120_000 }, () => {
  describe('when the agent pushes them through the gateway', () => {
    it.each(WRITES)('refuses %s, naming the rule', async (path, rule) => {
      const j = await started();
      const agent = await j.agent('wide');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: { message: 'Configure', files: [{ path, content: 'x = 1\n' }] },
      });
      expect(pushed.isError, text(pushed)).toBe(true);
      expect(text(pushed)).toContain(rule);
    });
  });

  describe('when they are pushed around the gateway', () => {
    it('fails the receipt, naming each file and its rule', async () => {
      const j = await started();
      await j.push(Object.fromEntries(WRITES.map(([path]) => [path, 'x = 1\n'])));
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      for (const [path, rule] of WRITES) {
        expect(post.annotations).toContainEqual(expect.objectContaining({ level: 'error', file: path }));
        expect(plain(post.summary)).toContain(
          `| <code>${path}</code> | added | **refused** | wide: ${rule} |`,
        );
      }
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('failure');
    });
  });
});
