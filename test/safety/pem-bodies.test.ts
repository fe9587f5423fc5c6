import { describe, expect, it } from 'vitest';
import { pemBodyFindings } from '../../src/safety/encoded/pem-bodies.js';
import { pemBodies } from '@perimeter/test-rigs';

const bodies = pemBodies();
const hidden = (text: string): string[] => pemBodyFindings(text).map((f) => text.slice(f.start, f.end));

describe('pemBodyFindings', () => {
  describe('when a private key has lost its BEGIN and END lines', () => {
    it.each(Object.entries(bodies.private))(
      'hides a %s body, as lines, indented, or one line',
      (_kind, body) => {
        const indented = body.replace(/^/gm, '  ');
        if (body.includes('\n'))
          expect(hidden(`key: |\n${indented}\nnext: 1\n`)).toEqual([indented.trimStart()]);
        expect(hidden(`key: ${body.replace(/\n/g, '')}\n`)).toEqual([body.replace(/\n/g, '')]);
      },
    );
  });

  describe('when the body is public', () => {
    it.each(Object.entries(bodies.public))('leaves a %s body', (_kind, body) => {
      expect(hidden(`key: |\n${body}\n`)).toEqual([]);
      expect(hidden(body.replace(/\n/g, ''))).toEqual([]);
    });
  });
});
