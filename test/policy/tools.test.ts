import { describe, expect, it } from 'vitest';
import { CONVERSATION_TOOLS, DEFAULT_TOOLS, TOOL_NAMES } from '../../src/policy/index.js';
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
        'open_pull_request',
        'add_comment',
        'read_thread',
      ]);
    });

    it('leaves the conversation tools (issue 44) out of the default grant', () => {
      expect(DEFAULT_TOOLS).toEqual(TOOL_NAMES.filter((t) => !CONVERSATION_TOOLS.includes(t)));
      expect(CONVERSATION_TOOLS).toEqual(['open_pull_request', 'add_comment', 'read_thread']);
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
