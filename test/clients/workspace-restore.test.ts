import { describe, expect, it } from 'vitest';
import { restoreHidden } from '../../src/clients/workspace-restore.js';
import { diskForm } from '../../src/gateway/reads/disk-form.js';
import { createSecretFilter } from '../../src/safety/index.js';
import { privateKeyBlock, providerSamples } from '@perimeter/test-rigs';

const MARKS = ['[hidden: ', '\u27ea'];
const TOKEN = providerSamples()[0]!.value;
const ORIGINAL = [
  'const a = 1;',
  `const token = "${TOKEN}";`,
  `const key = \`${privateKeyBlock()}\`;`,
  'const hi = "a\u200bb";',
  'const z = 26;',
  '',
].join('\n');

describe('diskForm', () => {
  it('shows placeholders and marks, and keeps what each changed line stands for', async () => {
    const form = (await diskForm(createSecretFilter(), ORIGINAL))!;
    expect(form.text).not.toContain(TOKEN);
    expect(form.text).toContain('const token = "[hidden: GitHub token]";');
    expect(form.text).toContain('\u27ea');
    expect(form.text).not.toContain('\u200b');
    const lines = form.text.split('\n');
    // every line is itself or stands for the original's text, in order: together they give the original back
    expect(lines.map((line, i) => form.originals![String(i)] ?? line).join('\n')).toBe(ORIGINAL);
  });

  it('leaves a file with nothing hidden as it is', async () => {
    expect(await diskForm(createSecretFilter(), 'plain\n')).toEqual({ text: 'plain\n', originals: null });
  });
});

describe('restoreHidden', () => {
  const filter = createSecretFilter();

  describe('when the agent edits lines without placeholders', () => {
    it('puts every value back untouched, edits and insertions as written', async () => {
      const form = (await diskForm(filter, ORIGINAL))!;
      const edited = form.text
        .replace('const a = 1;', 'const a = 2;\nconst b = 3;')
        .replace('const z = 26;\n', '');
      const restored = restoreHidden(form.text, form.originals!, edited, MARKS);
      expect(restored).toEqual({
        text: ORIGINAL.replace('const a = 1;', 'const a = 2;\nconst b = 3;').replace('const z = 26;\n', ''),
        originals: expect.any(Object) as object,
      });
    });

    it('keeps, for the next push, what the edited lines stand for', async () => {
      const form = (await diskForm(filter, ORIGINAL))!;
      const edited = `// header\n${form.text}`;
      const first = restoreHidden(form.text, form.originals!, edited, MARKS) as {
        text: string;
        originals: Record<string, string>;
      };
      const again = restoreHidden(edited, first.originals, `${edited}// footer\n`, MARKS);
      expect(again).toMatchObject({ text: `// header\n${ORIGINAL}// footer\n` });
    });
  });

  describe('when a placeholder is changed, removed or copied', () => {
    it('refuses, naming the line', async () => {
      const form = (await diskForm(filter, ORIGINAL))!;
      const changed = form.text.replace('[hidden: GitHub token]', 'guess');
      expect(restoreHidden(form.text, form.originals!, changed, MARKS)).toEqual({
        refused: ['line 2 (as handed out): a placeholder or mark there was changed or removed'],
      });
      const copied = `${form.text}${form.text.split('\n')[1]}\n`;
      const lines = copied.split('\n').length - 1;
      expect(restoreHidden(form.text, form.originals!, copied, MARKS)).toEqual({
        refused: [`line ${lines}: holds a placeholder or mark where none was handed out (moved or copied)`],
      });
    });
  });
});
