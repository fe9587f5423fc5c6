/**
 * A path the perimeter may write but not read is no oracle: push_files answers alike whether the
 * file exists and whatever it holds. Three repositories differ only in `vault/secret.txt` (absent,
 * holding the agent's guess, holding something else); every answer is compared byte for byte, with
 * each repository's own commit ids (which name different commits by necessity) put in as placeholders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '@perimeter/test-rigs';
import { pushTranscript } from './support/push-transcript.js';

const CONFIG = `
version: 1
perimeters:
  writer:
    read: ["src/**"]
    write: ["src/**", "vault/**"]
`;
const GUESS = 'hunter2\n';
const VARIANTS = {
  absent: {},
  'holding the guess': { 'vault/secret.txt': GUESS },
  'holding something else': { 'vault/secret.txt': 'correct horse\n' },
} as const;

type Probe = Record<string, unknown>;
const PROBES: Array<[string, Probe]> = [
  ['write the guessed content', { message: 'm', files: [{ path: 'vault/secret.txt', content: GUESS }] }],
  ['delete the file', { message: 'm', files: [], deletions: ['vault/secret.txt'] }],
  [
    'write a readable file and delete the unreadable one',
    { message: 'm', files: [{ path: 'src/a.ts', content: 'a\n' }], deletions: ['vault/secret.txt'] },
  ],
  ['write the guess again', { message: 'm', files: [{ path: 'vault/secret.txt', content: GUESS }] }],
];

describe('push_files on a write-only path', () => {
  const harnesses: Record<string, Harness> = {};

  beforeAll(async () => {
    for (const [name, extra] of Object.entries(VARIANTS))
      harnesses[name] = await startHarness({ files: { 'src/app.ts': 'x\n', ...extra }, config: CONFIG });
  });
  afterAll(async () => Promise.all(Object.values(harnesses).map((h) => h.close())));

  it('answers byte for byte alike whether the file is absent, holds the guess or holds something else', async () => {
    const transcripts: Record<string, string[]> = {};
    for (const [name, h] of Object.entries(harnesses)) {
      const client = await h.connect('writer');
      transcripts[name] = await pushTranscript(h, client, PROBES);
    }
    const [first, ...rest] = Object.values(transcripts);
    for (const other of rest) expect(other).toEqual(first);
    // and the answers are what an agent needs: the write landed, the deletion is refused
    expect(first?.[0]).toContain('"commit":"<commit 1>"');
    expect(first?.[1]).toContain('cannot delete a path this endpoint cannot read');
    expect(first?.[3]).toContain('"commit":"<commit 2>"');
  });

  it('hides the commit that changed nothing visible from get_commit and list_commits', async () => {
    const h = harnesses['holding the guess']!;
    const client = await h.connect('writer');
    const head = await h.head();
    const commit = await call(client, 'get_commit', { sha: head });
    expect(commit.isError).toBe(true);
    const listed = await call(client, 'list_commits', {});
    expect(JSON.stringify(listed)).not.toContain(head);
  });
});
