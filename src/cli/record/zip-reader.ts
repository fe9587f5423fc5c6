import { inflateRawSync } from 'node:zlib';

/**
 * Reads the files of a zip archive in memory, as GitHub serves a workflow artifact (the Actions UI's download,
 * the REST `.../artifacts/{id}/zip`): stored or deflated entries, found through the central directory,
 * each checked against its CRC-32. Nothing is written to disk, so entry names cannot escape anywhere.
 * Zip64, encryption and other methods are refused with a message, never half read.
 * https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT
 */
export class ZipError extends Error {
  override name = 'ZipError';
}

/**
 * No Perimeter record comes near this: a bigger entry, or entries that declare more in all, are refused
 * before they are inflated. Inflating stops at the size an entry declares, so memory stays within the
 * declared sizes whatever the compressed bytes hold.
 */
const MAX_ENTRY_BYTES = 512 * 1024 * 1024;
const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function endOfCentralDirectory(zip: Buffer): number {
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === EOCD) return at;
  }
  throw new ZipError('not a zip archive (no end of central directory)');
}

interface Entry {
  name: string;
  method: number;
  crc: number;
  packed: number;
  size: number;
  local: number;
}

/** The central directory's file entries, every size declared checked before anything is inflated. */
function centralDirectory(zip: Buffer): Entry[] {
  if (zip.length < 22) throw new ZipError('not a zip archive (too short)');
  const end = endOfCentralDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) throw new ZipError('zip64 archives are not read');
  const entries: Entry[] = [];
  let declared = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL)
      throw new ZipError(`entry ${i + 1}: the central directory is damaged`);
    const flags = zip.readUInt16LE(at + 8);
    const nameLength = zip.readUInt16LE(at + 28);
    const entry: Entry = {
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      method: zip.readUInt16LE(at + 10),
      crc: zip.readUInt32LE(at + 16),
      packed: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      local: zip.readUInt32LE(at + 42),
    };
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const { name } = entry;
    if (name.endsWith('/')) continue;
    if (flags & 0x1) throw new ZipError(`${name}: encrypted entries are not read`);
    if (entry.size > MAX_ENTRY_BYTES || entry.packed === 0xffffffff)
      throw new ZipError(`${name}: larger than ${MAX_ENTRY_BYTES} bytes`);
    declared += entry.size;
    if (declared > MAX_TOTAL_BYTES)
      throw new ZipError(`${name}: the entries declare more than ${MAX_TOTAL_BYTES} bytes in all`);
    entries.push(entry);
  }
  return entries;
}

/**
 * The archive's files by name (directories left out). Memory stays within the sizes the entries declare:
 * an entry inflating to more is refused at its declared size plus one byte.
 */
export function readZip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const { name, method, crc, packed, size, local } of centralDirectory(zip)) {
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL)
      throw new ZipError(`${name}: the local header is damaged`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + packed);
    if (raw.length !== packed) throw new ZipError(`${name}: truncated`);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) {
      try {
        // one byte over the declared size shows the lie without inflating the rest (zlib wants at least 1)
        data = inflateRawSync(raw, { maxOutputLength: size + 1 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
          throw new ZipError(`${name}: inflates to more than the ${size} bytes it declares`);
        throw new ZipError(`${name}: cannot inflate (${(error as Error).message})`);
      }
    } else throw new ZipError(`${name}: compression method ${method} is not read`);
    if (data.length !== size || crc32(data) !== crc)
      throw new ZipError(`${name}: the content does not match its size and CRC-32`);
    if (files.has(name)) throw new ZipError(`${name}: listed twice`);
    files.set(name, data);
  }
  return files;
}
