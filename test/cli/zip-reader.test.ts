import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readZip, ZipError } from '../../src/cli/record/zip-reader.js';

/** A zip as APPNOTE describes it (what archiver writes for a workflow artifact, minus data descriptors). */
function zip(
  entries: Array<{ name: string; data: string | Buffer; method?: 0 | 8; crc?: number; size?: number }>,
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.from(entry.data);
    const method = entry.method ?? 8;
    const packed = method === 8 ? deflateRawSync(data) : data;
    const name = Buffer.from(entry.name);
    const crc = entry.crc ?? crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(entry.size ?? data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(entry.size ?? data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe('readZip', () => {
  it('reads stored and deflated entries, leaving directories out', () => {
    const files = readZip(
      zip([
        { name: 'receipt.json', data: '{"a":1}' },
        { name: 'ledger.jsonl', data: 'x\n'.repeat(1000), method: 0 },
        { name: 'dir/', data: '', method: 0 },
      ]),
    );
    expect([...files.keys()]).toEqual(['receipt.json', 'ledger.jsonl']);
    expect(files.get('ledger.jsonl')!.toString()).toBe('x\n'.repeat(1000));
  });

  describe('when the archive is not sound', () => {
    it.each([
      ['not a zip', Buffer.from('{"state":"success"}'), /not a zip archive/],
      ['cut short', zip([{ name: 'a', data: 'hello' }]).subarray(0, 40), /not a zip archive|damaged/],
      [
        'a CRC that does not match',
        zip([{ name: 'a', data: 'hello', crc: 1 }]),
        /a: the content does not match/,
      ],
      [
        'a name twice',
        zip([
          { name: 'a', data: '1' },
          { name: 'a', data: '2' },
        ]),
        /a: listed twice/,
      ],
    ])('throws a ZipError for %s', (_, bytes, message) => {
      expect(() => readZip(bytes)).toThrow(ZipError);
      expect(() => readZip(bytes)).toThrow(message);
    });
  });

  describe('when an entry holds more than it declares', () => {
    it('stops inflating at the declared size, before the rest is in memory', () => {
      // 64 MiB of zeros deflate to 64 KiB: a 16-byte entry on paper
      const bomb = zip([{ name: 'receipt.json', data: Buffer.alloc(64 * 1024 * 1024), size: 16 }]);
      expect(bomb.length).toBeLessThan(100_000);
      const before = process.memoryUsage().arrayBuffers;
      expect(() => readZip(bomb)).toThrow(
        new ZipError('receipt.json: inflates to more than the 16 bytes it declares'),
      );
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    });

    it('refuses an archive whose entries declare more than a record holds in all', () => {
      const big = 200 * 1024 * 1024;
      const many = zip(
        ['a', 'b', 'c'].map((name) => ({ name, data: Buffer.alloc(0), method: 0 as const, size: big })),
      );
      expect(() => readZip(many)).toThrow(/c: the entries declare more than \d+ bytes in all/);
    });
  });
});
