/**
 * What push_files cannot see answers as missing: a write below a write-only file, or of a file where a
 * folder holding nothing readable lies, answers as the same write where nothing is. Three repositories
 * differ only in what lies under `vault/` (nothing, a write-only file, a hidden folder); the same pushes
 * get byte-identical answers (commit ids put in as placeholders) and what the perimeter can see after them
 * is the same. The property over random trees and perimeters is in test/gateway/push-oracle-property.test.ts.
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
const VARIANTS = {
  missing: {},
  'a write-only file': { 'vault/secret.txt': 'hunter2\n' },
  'a hidden folder': { 'vault/dir/a.txt': 'a\n', 'vault/dir/b/c.txt': 'c\n' },
} as const;

const PROBES: Array<[string, Record<string, unknown>]> = [
  [
    'below the write-only file',
    { message: 'm', files: [{ path: 'vault/secret.txt/probe', content: 'p\n' }] },
  ],
  [
    'below a file in the hidden folder',
    { message: 'm', files: [{ path: 'vault/dir/b/c.txt/x', content: 'p\n' }] },
  ],
  ['at the hidden folder', { message: 'm', files: [{ path: 'vault/dir', content: 'p\n' }] }],
];

describe('push_files where the perimeter cannot see', () => {
  const harnesses: Record<string, Harness> = {};

  beforeAll(async () => {
    for (const [name, extra] of Object.entries(VARIANTS))
      harnesses[name] = await startHarness({ files: { 'src/app.ts': 'x\n', ...extra }, config: CONFIG });
  });
  afterAll(async () => Promise.all(Object.values(harnesses).map((h) => h.close())));

  it('answers as where nothing is, whether a write-only file or a hidden folder is there', async () => {
    const transcripts: Record<string, string[]> = {};
    for (const [name, h] of Object.entries(harnesses)) {
      const client = await h.connect('writer');
      transcripts[name] = await pushTranscript(h, client, PROBES);
      const tree = await call(client, 'get_tree', { recursive: true });
      transcripts[name].push(`tree: ${JSON.stringify(tree).replace(/\b[0-9a-f]{40}\b/g, '<sha>')}`);
    }
    expect(transcripts['a write-only file']).toEqual(transcripts.missing);
    expect(transcripts['a hidden folder']).toEqual(transcripts.missing);
    // every write landed, as it does where nothing is
    expect(transcripts.missing!.slice(0, 3).every((line) => line.includes('"commit":"<commit'))).toBe(true);
  });
});
