import { describe, expect, it } from 'vitest';
import { TOOL_CATALOGUE, TOOL_NAMES } from '../../../src/policy/index.js';
import { ALL_TOOLS, TOOLS, toolNamed } from '../../../src/gateway/tools/all-tools.js';
import { requestedPaths } from '../../../src/gateway/tools/definition.js';

describe('TOOLS', () => {
  it('holds one definition per name of the policy catalogue, under its own name', () => {
    expect(Object.keys(TOOLS).sort()).toEqual([...TOOL_NAMES].sort());
    for (const [name, tool] of Object.entries(TOOLS)) expect(tool.name).toBe(name);
  });

  it('carries its catalogue entry as its nature, and its read-only hint agrees with it', () => {
    for (const tool of ALL_TOOLS) {
      expect(tool.nature, tool.name).toBe(TOOL_CATALOGUE[tool.name]);
      expect(tool.readOnly, tool.name).toBe(!tool.nature.writes);
    }
  });

  it('declares only path arguments its input schema has', () => {
    for (const tool of ALL_TOOLS)
      for (const name of Object.keys(tool.pathArguments))
        expect(Object.keys(tool.inputSchema)).toContain(name);
  });

  it('answers undefined for a name no tool has, inherited names included', () => {
    expect(toolNamed('push_files')).toBe(TOOLS.push_files);
    expect(toolNamed('delete_repo')).toBeUndefined();
    expect(toolNamed('constructor')).toBeUndefined();
    expect(toolNamed('__proto__')).toBeUndefined();
  });
});

describe('requestedPaths', () => {
  describe('when push_files is called', () => {
    it('lists the written files, then the deletions', () => {
      const args = {
        message: 'm',
        files: [{ path: 'src/a.ts', content: 'x' }, null, { path: 7 }, { path: 'src/b.ts' }],
        deletions: ['old.txt', 3],
        path: 'not-an-argument-of-push_files',
      };
      expect(requestedPaths(TOOLS.push_files, args)).toEqual(['src/a.ts', 'src/b.ts', 'old.txt']);
    });
  });

  describe('when a tool names one path or a list', () => {
    it('reads the argument the tool declares', () => {
      expect(requestedPaths(TOOLS.get_file, { path: 'a.md' })).toEqual(['a.md']);
      expect(requestedPaths(TOOLS.get_files, { paths: ['a', 'b'], path: 'c' })).toEqual(['a', 'b']);
      expect(requestedPaths(TOOLS.get_commit, { sha: 'abc', path: 'x' })).toEqual([]);
    });
  });

  describe('when the arguments are not an object or the tool is unknown', () => {
    it('lists nothing', () => {
      expect(requestedPaths(TOOLS.get_file, null)).toEqual([]);
      expect(requestedPaths(TOOLS.get_file, 'a.md')).toEqual([]);
      expect(requestedPaths(undefined, { path: 'a.md' })).toEqual([]);
    });
  });

  it('keeps at most 1,000 paths', () => {
    const paths = Array.from({ length: 5000 }, (_, i) => `f${i}`);
    expect(requestedPaths(TOOLS.get_files, { paths })).toHaveLength(1000);
  });
});
