import { describe, expect, it } from 'vitest';
import { lineJoinLayer, literalJoinLayer, templateLayer } from '../../src/safety/encoded/joined-text.js';
import type { Decoded, Layer } from '../../src/safety/encoded/layers.js';

const A = 'ghp_FAKEabcdefghij';
const B = 'klmnopqrstuvwxyz0123';
const joins = (layer: Layer, text: string): string[] => layer(text).map((d) => d.text);

/** Each slice is the original's characters where it says it came from. */
function slicesHold(text: string, decoded: Decoded): boolean {
  return (decoded.slices ?? []).every(
    ({ at, from, length }) => text.slice(at, at + length) === decoded.text.slice(from, from + length),
  );
}

describe('lineJoinLayer', () => {
  describe('when a value is split at a line end', () => {
    it.each([
      ['bare', `token: ${A}\n${B}\n`],
      ['with a backslash continuation, indented', `export T=${A}\\\n    ${B}\n`],
      ['with CRLF line ends', `token: ${A}\r\n${B}\r\n`],
      ["with PowerShell's backtick", `$t = ${A}\`\n  ${B}\n`],
    ])('joins it %s', (_how, text) => {
      expect(joins(lineJoinLayer, text).some((joined) => joined.endsWith(A + B))).toBe(true);
    });

    it('joins a value wrapped over many lines, with and without the words around it', () => {
      const text = `The key is ${A}\n${B}\n${A}\nnext: 1\n`;
      const found = lineJoinLayer(text);
      expect(found.map((d) => d.text)).toEqual([
        `${A}${B}${A}next:`,
        `${A}${B}${A}`,
        `${B}${A}next:`,
        `${B}${A}`,
      ]);
      expect(found.every((d) => slicesHold(text, d))).toBe(true);
    });
  });

  describe('when a line ends in a space or nothing joins', () => {
    it.each([
      ['a space before the line end', `token: ${A} \n${B}\n`],
      ['a blank line between', `token: ${A}\n\n${B}\n`],
      ['short words', 'foo\nbar\n'],
      ['one line', A + B],
    ])('joins nothing: %s', (_what, text) => {
      expect(lineJoinLayer(text)).toEqual([]);
    });
  });
});

describe('literalJoinLayer', () => {
  describe('when string literals are joined', () => {
    it.each([
      ['with +', `t = "${A}" + "${B}";`],
      ['with + over a line end', `t = '${A}' +\n    '${B}';`],
      ["Python's adjacent literals", `t = ("${A}"\n     "${B}")`],
      ["PHP's .", `$t = '${A}' . '${B}';`],
      ["Lua's ..", `t = "${A}" .. "${B}"`],
      ['with a backslash continuation', `t = "${A}" \\\n  "${B}"`],
    ])('joins them %s', (_how, text) => {
      const [found] = literalJoinLayer(text);
      expect(found?.text).toBe(A + B);
      expect(slicesHold(text, found!)).toBe(true);
    });

    it('joins a chain of three into one', () => {
      expect(joins(literalJoinLayer, `x = "${A}" + "${B}" + "${A}"; y = "a" + "b";`)).toEqual([A + B + A]);
    });
  });

  describe('when literals are not joined', () => {
    it.each([
      ['a comma between', `f("${A}", "${B}")`],
      ['a variable between', `"${A}" + x + "${B}"`],
      ['different quotes', `"${A}" + '${B}'`],
    ])('joins nothing: %s', (_what, text) => {
      expect(literalJoinLayer(text)).toEqual([]);
    });
  });
});

describe('templateLayer', () => {
  it("puts a template's literal pieces in place", () => {
    const text = `const t = \`${A}\${'${B}'}\${ "x" }\`;`;
    const [found] = templateLayer(text);
    expect(found?.text).toBe(`${A}${B}x`);
    expect(slicesHold(text, found!)).toBe(true);
  });

  it('leaves templates with other pieces, or none', () => {
    expect(templateLayer(`\`${A}\${name}${B}\` and \`${A}${B}\``)).toEqual([]);
  });
});
