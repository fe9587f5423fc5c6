import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCheckout, runCli } from './run-cli.js';

const CONFIG = `version: 1
perimeters:
  copilot:
    read: ["**"]
    write: ["src/**"]
    pull-requests: { authors: [Copilot], branches: ["copilot/**"] }
  docs:
    read: ["**"]
    write: ["docs/**"]
    pull-requests: { branches: ["docs/*"] }
`;

let dir: string;
beforeAll(() => {
  dir = makeCheckout({ 'perimeters.yml': CONFIG, 'src/a.ts': 'a' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('perimeter explain --pr-author --pr-branch', () => {
  describe('when one perimeter is assigned to the pull request', () => {
    it('says which and why, and explains the paths for it alone', async () => {
      const result = await runCli(
        ['explain', '--pr-author', 'Copilot', '--pr-branch', 'copilot/fix-7', 'src/a.ts', '.github/x.yml'],
        dir,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^pull request: judged by perimeter "copilot" \(author "Copilot", head branch glob "copilot\/\*\*"\)\n/,
      );
      expect(result.stdout).toContain('write yes');
      expect(result.stdout).not.toContain('docs ');
    });
  });

  describe('when no perimeter is assigned', () => {
    it('says so, and explains nothing', async () => {
      const result = await runCli(
        ['explain', '--pr-author', 'alice', '--pr-branch', 'feature', 'src/a.ts'],
        dir,
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        'pull request: no perimeter is assigned to pull requests by "alice" from "feature" (no "pull-requests" rule matches)\n',
      );
    });
  });

  describe('when only one of the two is given', () => {
    it('is a usage error', async () => {
      const result = await runCli(['explain', '--pr-author', 'Copilot', 'src/a.ts'], dir);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('--pr-author and --pr-branch go together');
    });
  });
});

describe('perimeter check with pull-requests', () => {
  it('shows which pull requests each perimeter judges', async () => {
    const result = await runCli(['check'], dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('judges pull requests by Copilot from copilot/**');
    expect(result.stdout).toContain('judges pull requests from docs/*');
    const json = JSON.parse((await runCli(['check', '--json'], dir)).stdout);
    expect(json.perimeters[0].pullRequests).toEqual({ authors: ['Copilot'], branches: ['copilot/**'] });
    expect(json.perimeters[1].pullRequests).toEqual({ authors: [], branches: ['docs/*'] });
  });
});
