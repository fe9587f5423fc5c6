import { describe, expect, it } from 'vitest';
import { readableRuns } from '../../src/safety/binary-text.js';

describe('readableRuns', () => {
  it('finds single-byte, UTF-8 and UTF-16 runs of 8 characters or more between binary bytes', () => {
    const bytes = Buffer.concat([
      Buffer.from([0, 1, 2]),
      Buffer.from('plain-ascii-run'),
      Buffer.from([0, 0xff]),
      Buffer.from('grüße-in-utf8'),
      Buffer.from([0, 3]),
      Buffer.from('utf16-little', 'utf16le'),
      Buffer.from([7, 7]),
      Buffer.from('short'),
    ]);
    const { text, packed } = readableRuns(bytes);
    expect(text.split('\n')).toEqual(
      expect.arrayContaining(['plain-ascii-run', 'grüße-in-utf8', 'utf16-little']),
    );
    expect(text).not.toContain('short');
    expect(packed).toBeNull();
  });

  it.each([
    [[0x1f, 0x8b, 8], 'gzip data'],
    [[0x50, 0x4b, 3, 4], 'zip archive (also jar, docx, xlsx)'],
    [[0x89, 0x50, 0x4e, 0x47], 'PNG image (compressed)'],
  ])('names a compressed format by its first bytes (%j)', (magic, name) => {
    expect(readableRuns(new Uint8Array([...magic, 0, 0, 0])).packed).toBe(name);
  });
});
