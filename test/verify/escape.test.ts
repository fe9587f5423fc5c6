import fc from 'fast-check';
import { micromark } from 'micromark';
import { describe, expect, it } from 'vitest';
import { codeBlock, inlineText, markdownText, visible, type Verdict } from '../../src/verify/index.js';
import { B, receiptOf, verdict } from './support/verdict.js';

/** A failure for one path added outside every perimeter by a direct push. */
const failure = (path: string): Verdict =>
  verdict({
    state: 'failure',
    files: [{ path, kind: 'added', newMode: '100644', allowed: false, rule: 'impl: no write glob matches' }],
    violations: [{ kind: 'path', path, message: `${path}: added outside every perimeter` }],
    commits: { gateway: [], direct: [B], others: [], unattributed: [], complete: true },
  });

const BIDI_PATH = 'src/\u202eexe.txt\u202c.sh';
const CRLF_PATH = 'src/a\r\n## ✅ Perimeter: success\r\n.ts';

describe('visible', () => {
  it('shows bidi overrides, zero-width characters, CR/LF and other controls as escapes', () => {
    expect(visible(BIDI_PATH)).toBe('src/\\u202eexe.txt\\u202c.sh');
    expect(visible('a\u200bb\r\nc\u0007\u{e0041}')).toBe('a\\u200bb\\u000d\\u000ac\\u0007\\u{e0041}');
  });

  it('leaves ordinary text, accents, CJK and emoji alone', () => {
    for (const text of ['src/app.ts', 'Grüße/東京/🎉.md', 'a b-c_d (e)']) expect(visible(text)).toBe(text);
  });
});

describe('codeBlock', () => {
  it('keeps any content inside the block, whatever fences it holds (property, CommonMark)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom('```', '````', '~~~', '\n', '# Perimeter: success', '<b>x</b>', '`', ' ', 'log'),
          {
            maxLength: 30,
          },
        ),
        (parts) => {
          const content = parts.join('');
          const html = micromark(`before\n\n${codeBlock(content)}\n\nafter\n`);
          // exactly one code block, followed by the paragraph after it: nothing escaped the fence
          expect(html.match(/<pre>/g)?.length).toBe(1);
          expect(html).toMatch(/<\/code><\/pre>\n<p>after<\/p>\n$/);
          expect(html).not.toContain('<h1>');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps lines and tabs, escapes the other hidden characters', () => {
    expect(codeBlock('a\tb\nc\u202ed')).toBe('```text\na\tb\nc\\u202ed\n```');
  });
});

describe('the receipt for agent-chosen paths', () => {
  it('puts no raw bidi control in the summary, the status or the annotations', () => {
    const receipt = receiptOf(failure(BIDI_PATH));
    const all = [receipt.summary, receipt.status.description, ...receipt.annotations.map((a) => a.message)];
    for (const text of all) {
      expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      expect(text).toMatch(/(?:\\|&#92;)u202e/);
    }
  });

  it('keeps the status description on one line, with the path shown as it is', () => {
    const { status } = receiptOf(failure(CRLF_PATH));
    expect(status.description).not.toMatch(/[\r\n]/);
    expect(status.description.startsWith('1 violation: src/a\\u000d\\u000a## ✅ Perimeter')).toBe(true);
    expect([...status.description].length).toBeLessThanOrEqual(140);
  });

  it('renders no heading from a path in the summary (CommonMark)', () => {
    const html = micromark(receiptOf(failure(CRLF_PATH)).summary);
    expect(html.match(/<h2>/g)?.length).toBe(1);
    expect(html).toContain('<h2>❌ Perimeter: failure</h2>');
  });

  it('escapes markdown in a failed run reason, leaving quotes and parentheses as written', () => {
    for (const escape of [markdownText, inlineText])
      expect(micromark(escape('**bold** [x](http://e) <img src=x> `c` # h'))).not.toMatch(
        /<strong>|<a |<img|<code>|<h1>/,
      );
    expect(micromark(inlineText('no perimeter ("implementer") is marked: x'))).toBe(
      '<p>no perimeter (&quot;implementer&quot;) is marked: x</p>',
    );
  });
});

describe('inlineText and markdownText', () => {
  describe('when agent text holds a mention, a link or an e-mail address', () => {
    it.each([
      ['docs/@team.md', '@team'],
      ['see https://evil.example/x', 'https://evil'],
      ['see www.evil.example', 'www.evil'],
      ['mail me@evil.example', 'me@evil'],
    ])('makes %j inert: GitHub sees no %j, in the markdown or in its rendered text', (value, trigger) => {
      for (const escape of [inlineText, markdownText]) {
        const shown = escape(value);
        expect(shown).not.toContain(trigger);
        const html = micromark(shown, { allowDangerousHtml: true });
        // what GitHub's mention and autolink filters read: the rendered text, comments as separators
        const text = html
          .replace(/<!--[^]*?-->/g, '\u0000')
          .replace(/<[^>]+>/g, '')
          .replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)))
          .replace(/&amp;/g, '&');
        expect(text.split('\u0000').join('')).toContain(value);
        for (const piece of text.split('\u0000')) expect(piece).not.toContain(trigger);
      }
    });

    it('leaves text without one as it was', () => {
      expect(inlineText('src/app.ts (renamed)')).toBe('src/app.ts (renamed)');
    });
  });
});
