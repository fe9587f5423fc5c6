import { describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../../src/policy/index.js';
import { isToolName } from '../../src/policy/tools.js';

describe('TOOL_NAMES', () => {
  describe('when the catalogue is read', () => {
    it('is exactly the agent-safe tools of DESIGN.md, in order, and request_scope (issue 28)', () => {
      expect(TOOL_NAMES).toEqual([
        'get_tree',
        'get_file',
        'get_files',
        'push_files',
        'list_commits',
        'get_commit',
        'request_scope',
      ]);
    });

    it('never offers branch listing, cross-branch compare or another repository', () => {
      for (const name of TOOL_NAMES) expect(name).not.toMatch(/branch|compare|repo|ref|fork|merge/);
    });
  });
});

describe('isToolName', () => {
  describe.each(['get_file', 'push_files'])('when the name is %j', (name) => {
    it('is a tool', () => expect(isToolName(name)).toBe(true));
  });
  describe.each(['list_branches', 'compare_commits', 'GET_FILE', '', 42, null, 'toString', '__proto__'])(
    'when the name is %j',
    (name) => {
      it('is not a tool', () => expect(isToolName(name)).toBe(false));
    },
  );
});
