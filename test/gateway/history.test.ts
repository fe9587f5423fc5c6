import { describe, expect, it } from 'vitest';
import { History, MAX_SCAN } from '../../src/gateway/reads/history.js';
import { compilePerimeter, parseConfig } from '../../src/policy/index.js';
import { createMemoryUpstream } from './support/memory-upstream.js';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**"]
    write: ["src/**"]
`;

describe('History.list', () => {
  describe('when a hidden directory has more history than one answer examines', () => {
    it('answers exactly like a missing path: nothing found, and not "incomplete"', async () => {
      const upstream = await createMemoryUpstream({ 'src/a.ts': 'a', 'secret/s.txt': '0' });
      for (let i = 1; i <= MAX_SCAN + 1; i++) await upstream.commitDirect('main', { 'secret/s.txt': `${i}` });
      const perimeter = compilePerimeter(parseConfig(CONFIG).perimeters[0]!);
      const history = new History(upstream);
      const head = await upstream.getBranchHead('main');
      const hidden = await history.list(perimeter, head, 'secret', 30, 1);
      const missing = await history.list(perimeter, head, 'nowhere', 30, 1);
      expect(hidden).toEqual(missing);
      expect(hidden).toEqual({ commits: [], hasMore: false, incomplete: false });
    });
  });
});
