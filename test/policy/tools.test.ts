import { describe, expect, it } from 'vitest';
import {
  CONVERSATION_TOOLS,
  DEFAULT_TOOLS,
  servesContent,
  TOOL_CATALOGUE,
  TOOL_NAMES,
} from '../../src/policy/index.js';
import { isToolName } from '../../src/policy/tools.js';

describe('TOOL_NAMES', () => {
  describe('when the catalogue is read', () => {
    it('is exactly the agent-safe tools of DESIGN.md, in order, the read tools of issue 45 and request_scope (issue 28)', () => {
      expect(TOOL_NAMES).toEqual([
        'get_tree',
        'get_file',
        'get_files',
        'push_files',
        'list_commits',
        'get_commit',
        'search',
        'blame',
        'diff',
        'request_scope',
        'open_pull_request',
        'add_comment',
        'read_thread',
      ]);
    });

    it('grants by default exactly the tools whose entry says so: all but the conversation ones (issue 44)', () => {
      expect(DEFAULT_TOOLS).toEqual(TOOL_NAMES.filter((name) => TOOL_CATALOGUE[name].defaultGrant));
      expect(DEFAULT_TOOLS).toEqual(TOOL_NAMES.filter((t) => !CONVERSATION_TOOLS.includes(t)));
      expect(CONVERSATION_TOOLS).toEqual(['open_pull_request', 'add_comment', 'read_thread']);
    });

    it('says of each tool whether it serves file content: the files a workspace hands out follow it', () => {
      const content = TOOL_NAMES.filter((name) => TOOL_CATALOGUE[name].serves === 'content');
      expect(content).toEqual(['get_file', 'get_files', 'search', 'blame', 'diff']);
      expect(servesContent(['get_tree', 'list_commits', 'push_files'])).toBe(false);
      expect(servesContent(['get_tree', 'search'])).toBe(true);
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
