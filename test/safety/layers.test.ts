import { describe, expect, it } from 'vitest';
import {
  base64Layer,
  escapeLayer,
  hexLayer,
  htmlEntityLayer,
  urlLayer,
  type Layer,
} from '../../src/safety/encoded/layers.js';
import { LAYERS, sample } from '@perimeter/test-rigs';

const token = sample.github();
const texts = (layer: Layer, text: string): Array<[string, string]> =>
  layer(text).map((d) => [text.slice(d.start, d.end), d.text]);

describe('the decoding layers', () => {
  describe('when a value is under their layer', () => {
    it.each([
      ['base64', base64Layer, LAYERS.base64(token)],
      ['base64url', base64Layer, LAYERS.base64url(`${token}??>>`)],
      ['hex', hexLayer, LAYERS.hex(token)],
      ['upper-case hex after 0x', hexLayer, LAYERS['hex, upper case'](token)],
      ['hex bytes with colons', hexLayer, LAYERS['hex bytes with colons'](token)],
      ['URL escapes', urlLayer, LAYERS['URL, every third character'](token)],
      ['HTML entities', htmlEntityLayer, LAYERS['HTML hex entities, some'](token)],
      ['named HTML entities', htmlEntityLayer, LAYERS['HTML named entities'](token)],
      ['\\x escapes', escapeLayer, LAYERS['\\x escapes'](token)],
      ['\\u escapes', escapeLayer, LAYERS['\\u escapes'](token)],
    ])('%s: gives the whole run and what it stands for', (_what, layer, encoded) => {
      const decoded = texts(layer, `value: "${encoded}" end`);
      expect(decoded).toHaveLength(1);
      expect(decoded[0]![0]).toBe(encoded);
      expect(decoded[0]![1]).toContain(token);
    });

    it('undoes \\n, \\u{...} and octal escapes too', () => {
      expect(texts(escapeLayer, String.raw`a\nb\u{41}\101\x41`)).toEqual([
        [String.raw`a\nb\u{41}\101\x41`, 'a\nbAAA'],
      ]);
    });
  });

  describe('when nothing is encoded', () => {
    it.each([
      ['a git commit id (hex of no text)', hexLayer, 'commit da39a3ee5e6b4b0d3255bfef95601890afd80709'],
      ['base64 of random bytes', base64Layer, 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='],
      ['a query string', htmlEntityLayer, 'https://example.net/?a=1&b=2&copy=3'],
      ['a stray percent sign', urlLayer, '100% done, %zz'],
      ['a Windows path without escapes', escapeLayer, 'C:\\Program Files\\Node'],
      ['an odd-length hex run', hexLayer, `x ${LAYERS.hex(token)}a y`],
    ])('%s: gives nothing', (_what, layer, text) => {
      expect(layer(text)).toEqual([]);
    });
  });
});
