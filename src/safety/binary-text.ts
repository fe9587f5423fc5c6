/**
 * What of a binary file can be scanned for credentials: its runs of readable characters, as `strings`
 * finds them, in single bytes (ASCII, UTF-8 text between binary parts) and in UTF-16 (Windows
 * resources, some serializations). Compressed or encrypted content has no readable runs to find: such
 * formats are named, so an answer can say what was not looked into.
 */

/** Shorter runs are noise in binary data; every credential format we know of is longer. */
const MIN_RUN = 8;
const SINGLE_BYTE_RUN = new RegExp(`[\\t\\x20-\\x7e\\x80-\\xff]{${MIN_RUN},}`, 'g');
const UTF16LE_RUN = new RegExp(`(?:[\\t\\x20-\\x7e]\\x00){${MIN_RUN},}`, 'g');
const UTF16BE_RUN = new RegExp(`(?:\\x00[\\t\\x20-\\x7e]){${MIN_RUN},}`, 'g');

const PACKED: ReadonlyArray<{ magic: number[]; name: string }> = [
  { magic: [0x50, 0x4b, 0x03, 0x04], name: 'zip archive (also jar, docx, xlsx)' },
  { magic: [0x1f, 0x8b], name: 'gzip data' },
  { magic: [0x42, 0x5a, 0x68], name: 'bzip2 data' },
  { magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], name: 'xz data' },
  { magic: [0x28, 0xb5, 0x2f, 0xfd], name: 'zstd data' },
  { magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], name: '7z archive' },
  { magic: [0x52, 0x61, 0x72, 0x21], name: 'rar archive' },
  { magic: [0x25, 0x50, 0x44, 0x46], name: 'PDF (its streams are usually compressed)' },
  { magic: [0x89, 0x50, 0x4e, 0x47], name: 'PNG image (compressed)' },
  { magic: [0xff, 0xd8, 0xff], name: 'JPEG image' },
  { magic: [0x47, 0x49, 0x46, 0x38], name: 'GIF image' },
  {
    magic: [0x2d, 0x2d, 0x2d, 0x2d, 0x2d, 0x42, 0x45, 0x47, 0x49, 0x4e, 0x20, 0x50, 0x47, 0x50],
    name: 'PGP data',
  },
  { magic: [0x85, 0x01], name: 'PGP data' },
];

export interface BinaryText {
  /** the readable runs, one a line */
  text: string;
  /** the format whose content cannot be scanned (compressed, encrypted), or null */
  packed: string | null;
}

export function readableRuns(bytes: Uint8Array): BinaryText {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const runs: string[] = [];
  for (const m of latin1.matchAll(SINGLE_BYTE_RUN)) {
    // a run may be UTF-8 text between binary parts: read it as such, keeping the parts that decode
    // (and the raw run too when some part does not, so no byte sequence goes unscanned)
    const utf8 = Buffer.from(m[0], 'latin1').toString('utf8');
    if (!utf8.includes('\ufffd')) runs.push(utf8);
    else runs.push(m[0], ...utf8.split('\ufffd').filter((part) => part.length >= MIN_RUN));
  }
  for (const m of latin1.matchAll(UTF16LE_RUN)) runs.push(m[0].replaceAll('\0', ''));
  for (const m of latin1.matchAll(UTF16BE_RUN)) runs.push(m[0].replaceAll('\0', ''));
  const format = PACKED.find(({ magic }) => magic.every((byte, i) => bytes[i] === byte));
  return { text: runs.join('\n'), packed: format?.name ?? null };
}

/** Decodes strict UTF-8 without NUL bytes; null means binary. */
export function decodeText(data: Uint8Array): string | null {
  if (data.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return null;
  }
}
