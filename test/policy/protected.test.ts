import { describe, expect, it } from 'vitest';
import { PROTECTED_ENTRIES, protectedRule } from '../../src/policy/index.js';

describe('protectedRule', () => {
  describe.each([
    ['perimeters.yml', 'perimeters.yml'],
    ['sub/perimeters.yml', 'perimeters.yml'],
    ['PERIMETERS.YML', 'perimeters.yml'],
    ['.github/workflows/ci.yml', '.github/**'],
    ['.github', '.github/**'],
    ['.GitHub/workflows/ci.yml', '.github/**'],
    ['.GITHUB/CODEOWNERS', '.github/**'],
    ['.github./workflows/x.yml', '.github/**'],
    ['.github /x', '.github/**'],
    ['ｇｉｔｈｕｂ/x', null],
    ['．ｇｉｔｈｕｂ/workflows/x.yml', '.github/**'],
    ['.g\u0131thub/workflows/x.yml', '.github/**'],
    ['.G\u0130THUB/workflows/x.yml', null],
    ['packages/app/.github/workflows/x.yml', '.github/**'],
    ['CODEOWNERS', 'CODEOWNERS'],
    ['docs/CODEOWNERS', 'CODEOWNERS'],
    ['codeowners', 'CODEOWNERS'],
    ['.gitmodules', '.gitmodules'],
    ['.GitModules', '.gitmodules'],
    ['AGENTS.md', 'AGENTS.md'],
    ['src/agents.md', 'AGENTS.md'],
    ['CLAUDE.md', 'CLAUDE.md'],
    ['deep/er/Claude.MD', 'CLAUDE.md'],
    ['ＣＬＡＵＤＥ.md', 'CLAUDE.md'],
    ['.claude/settings.json', '.claude/**'],
    ['x/.Claude/commands/a.md', '.claude/**'],
    ['.codex/config.toml', '.codex/**'],
    ['.cursor/rules/a.mdc', '.cursor/**'],
    ['.mcp.json', '.mcp.json'],
    ['a/.MCP.json', '.mcp.json'],
    ['.vscode/mcp.json', '.vscode/mcp.json'],
    ['.VSCode/MCP.json', '.vscode/mcp.json'],
    ['pkg/.vscode/mcp.json', '.vscode/mcp.json'],
    ['.vscode/settings.json', null],
    ['src/index.ts', null],
    ['docs/github/x.md', null],
    ['claude.md.bak', null],
    ['.githubx/a', null],
    ['mcp.json', null],
  ])('when the path is %j', (path, rule) => {
    it(rule === null ? 'is not protected' : `is protected by ${rule}`, () => {
      expect(protectedRule(path)).toBe(rule);
    });
  });

  describe('when the name uses another Unicode normal form', () => {
    it('is protected in NFC and NFD alike', () => {
      const nfc = 'caf\u00e9/perimeters.yml';
      const config = 'r\u00e9gles.yml';
      expect(protectedRule(config.normalize('NFD'), config)).toBe(config);
      expect(protectedRule(config, config.normalize('NFD'))).toBe(config.normalize('NFD'));
      expect(protectedRule(nfc.normalize('NFD'))).toBe('perimeters.yml');
    });
  });

  describe('when the config file has another name', () => {
    it('protects that file and no longer perimeters.yml', () => {
      expect(protectedRule('config/perimeter.yaml', 'config/perimeter.yaml')).toBe('config/perimeter.yaml');
      expect(protectedRule('Config/Perimeter.YAML', 'config/perimeter.yaml')).toBe('config/perimeter.yaml');
      expect(protectedRule('perimeter.yaml', 'config/perimeter.yaml')).toBeNull();
      expect(protectedRule('perimeters.yml', 'config/perimeter.yaml')).toBeNull();
      expect(protectedRule('perimeters.yml', './perimeters.yml')).toBe('./perimeters.yml');
    });
  });

  describe('when every built-in entry is checked', () => {
    it.each(PROTECTED_ENTRIES.map((e) => [e]))('protects %s itself', (entry) => {
      expect(protectedRule(entry.replace('/**', '/x'))).toBe(entry);
    });
  });
});
