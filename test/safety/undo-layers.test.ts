/**
 * How much work undoing layers does, counted rather than timed: characters read by the layers and decoded
 * texts produced, against the text's length. A test that timed it would depend on the machine.
 */
import { describe, expect, it } from 'vitest';
import { undoLayers, MAX_DEPTH } from '../../src/safety/encoded/undo-layers.js';
import { LAYERS, sample } from '@perimeter/test-rigs';

const token = sample.github();

describe('undoLayers', () => {
  describe('when layers are nested', () => {
    it('undoes up to four, each decoded text kept with its outermost run', () => {
      const encoded = LAYERS.base64(LAYERS.hex(LAYERS['URL, every byte'](LAYERS.base64(token))));
      const text = `x = ${encoded};`;
      const { undone } = undoLayers(text);
      const deepest = undone.find((u) => u.text === token);
      expect(deepest).toMatchObject({ depth: MAX_DEPTH, start: 4, end: 4 + encoded.length });
    });
  });

  describe('on a megabyte built to be slow', () => {
    const MB = 1_000_000;
    const hostile: Record<string, string> = {
      'one long run without an escape': 'password'.repeat(MB / 8),
      'escapes between words': 'a%20b '.repeat(MB / 6),
      'base64 of text, one a line': `${LAYERS.base64('token is ghp_ but not one, x')}\n`.repeat(MB / 41),
      // every run decodes under three textual layers at once, and again below: a tree of decodings
      'escapes of every kind in every run': `${'%41&#66;\\x43'.repeat(4)}abcdefgh `.repeat(MB / 57),
      'base64 of base64 of base64': `${LAYERS.base64(LAYERS.base64(LAYERS.base64('x'.repeat(60))))}\n`.repeat(
        MB / 145,
      ),
      'string literals joined in a chain': '"abcdefghijklmnopq" + '.repeat(MB / 22),
      'wrapped lines': `${'A'.repeat(75)}\n`.repeat(MB / 76),
    };

    // eight layers read the text and up to twice its length decoded (24 times), plus the separators
    // between decoded texts of 16 characters or more (3 characters each: at most 3 times more)
    it.each(Object.entries(hostile))(
      'reads at most 27 times its length and decodes at most twice: %s',
      (_what, text) => {
        const { stats } = undoLayers(text);
        expect(stats.decoded).toBeLessThanOrEqual(2 * text.length + 64 * 1024);
        expect(stats.scanned).toBeLessThanOrEqual(27 * text.length);
      },
    );

    it('leaves out the deepest decodings once the budget is spent, and says so', () => {
      const { stats } = undoLayers(hostile['escapes of every kind in every run']!);
      expect(stats.skipped).toBeGreaterThan(0);
    });
  });
});
