import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { instructionFileRule, INSTRUCTION_FILE_RULES, protectedRule } from '../../src/policy/index.js';

describe('instructionFileRule', () => {
  it.each([
    ['AGENTS.md', 'AGENTS.md'],
    ['pkg/deep/AGENTS.md', 'AGENTS.md'],
    ['agents.MD', 'AGENTS.md'],
    ['ＣＬＡＵＤＥ.md', 'CLAUDE.md'],
    ['CLAUDE.local.md', 'CLAUDE.local.md'],
    ['AGENT.md', 'AGENT.md'],
    ['GEMINI.md', 'GEMINI.md'],
    ['QWEN.md', 'QWEN.md'],
    ['.cursorrules', '.cursorrules'],
    ['.windsurfrules', '.windsurfrules'],
    ['.clinerules', '.clinerules'],
    ['.clinerules/style.md', '.clinerules/**'],
    ['.github/copilot-instructions.md', 'copilot-instructions.md'],
    ['web/.github/copilot-instructions.md', 'copilot-instructions.md'],
    ['.github/instructions/ts.instructions.md', '.github/instructions/**'],
    ['.github/prompts/review.prompt.md', '.github/prompts/**'],
    ['.cursor/rules/style.mdc', '.cursor/**'],
    ['.roo/rules/a.md', '.roo/**'],
    ['.kiro/steering/product.md', '.kiro/**'],
    ['.junie/guidelines.md', '.junie/**'],
    ['.continue/rules/x.md', '.continue/**'],
    ['.claude/commands/ship.md', '.claude/**'],
    ['README.md', null],
    ['src/agents.ts', null],
    ['.github/workflows/ci.yml', null],
    ['docs/CLAUDE.md.bak', null],
    ['.cursor', null],
  ])('%s -> %s', (path, rule) => {
    expect(instructionFileRule(path)).toBe(rule);
    if (rule !== null) expect(INSTRUCTION_FILE_RULES).toContain(rule);
  });

  it.each(INSTRUCTION_FILE_RULES.map((rule) => [rule]))('is protected for %s too (one table)', (rule) => {
    expect(protectedRule(rule.replace('/**', '/x.md'))).not.toBeNull();
  });

  it('lists every rule in docs/content-safety.md', async () => {
    const page = await readFile(new URL('../../docs/content-safety.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('**Agent instruction files**'));
    for (const rule of INSTRUCTION_FILE_RULES) expect(section, rule).toContain(`\`${rule}\``);
  });
});
