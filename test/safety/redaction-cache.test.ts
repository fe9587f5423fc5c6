import { describe, expect, it } from 'vitest';
import { RedactionCache } from '../../src/safety/redaction-cache.js';

const redaction = (text: string) => ({ text, hidden: 0, kinds: {} });

describe('RedactionCache', () => {
  it('keys texts by content', () => {
    const cache = new RedactionCache();
    expect(cache.key('a')).toBe(cache.key('a'));
    expect(cache.key('a')).not.toBe(cache.key('b'));
  });

  describe('when its budget is spent', () => {
    it('lets the least recently used entries go first', () => {
      const cache = new RedactionCache(40);
      cache.set('a', redaction('x'.repeat(10)));
      cache.set('b', redaction('y'.repeat(10)));
      cache.set('c', redaction('z'.repeat(10)));
      expect(cache.get('a')).toBeDefined();
      cache.set('d', redaction('w'.repeat(10)));
      cache.set('e', redaction('v'.repeat(10)));
      expect(cache.get('b')).toBeUndefined();
      expect(cache.get('a')?.text).toBe('x'.repeat(10));
      expect(cache.get('c')?.text).toBe('z'.repeat(10));
      expect(cache.get('e')?.text).toBe('v'.repeat(10));
    });

    it('never keeps a text larger than a quarter of the budget', () => {
      const cache = new RedactionCache(40);
      cache.set('big', redaction('x'.repeat(11)));
      expect(cache.get('big')).toBeUndefined();
    });
  });
});
