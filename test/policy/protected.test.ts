import { describe, expect, it } from 'vitest';
import { compilePerimeter, parseConfig, PROTECTED_ENTRIES, protectedRule } from '../../src/policy/index.js';

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
    // not .github (a dotted capital I folds to i and a dot above), only a top-level dot directory
    ['.G\u0130THUB/workflows/x.yml', '.G\u0130THUB/**, a top-level dot directory'],
    ['docs/.G\u0130THUB/workflows/x.yml', null],
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
    ['.vscode/settings.json', '.vscode/settings.json'],
    ['.vscode/extensions.json', '.vscode/extensions.json'],
    ['.vscode/snippets.code-snippets', '.vscode/**, a top-level dot directory'],
    ['docs/.vscode/snippets.code-snippets', null],
    ['.cargo/config.toml', '.cargo/config.toml, tools family'],
    ['crates/x/.cargo/config.toml', '.cargo/config.toml, tools family'],
    ['.cargo/registry/x', '.cargo/**, a top-level dot directory'],
    ['.gitlab/ci/deploy.yml', '.gitlab/**, tools family'],
    ['.gitlab-ci.yml', '.gitlab-ci.yml, tools family'],
    ['.Config/git/hooks/x', '.config/**, tools family'],
    ['.yarnrc.yml', '.yarnrc.yml, tools family'],
    ['.bazelrc', '.bazelrc, tools family'],
    ['.changeset/brave-cats.md', '.changeset/**, a top-level dot directory'],
    ['．changeset/x.md', '．changeset/**, a top-level dot directory'],
    ['.prettierrc', null],
    ['src/.eslintrc', null],
    ['docs/.vitepress/config.ts', null],
    ['AGENT.md', 'AGENT.md'],
    ['pkg/.clinerules', '.clinerules'],
    ['.clinerules/rules.md', '.clinerules'],
    ['.roo/rules/a.md', '.roo/**'],
    ['.kiro/steering/x.md', '.kiro/**'],
    ['QWEN.md', 'QWEN.md'],
    ['.junie/guidelines.md', '.junie/**'],
    ['.continue/config.yaml', '.continue/**'],
    ['opencode.json', 'opencode.json'],
    ['docs/.github/copilot-instructions.md', '.github/**'],
    ['.aider.conf.yml', '.aider.conf.yml'],
    ['.envrc', '.envrc'],
    ['.husky/pre-commit', '.husky/**'],
    ['.pre-commit-config.yaml', '.pre-commit-config.yaml'],
    ['.devcontainer/devcontainer.json', '.devcontainer/**'],
    ['.agents/skills/deploy/SKILL.md', '.agents/skills/**'],
    ['.agents/skills/deploy/run.sh', '.agents/skills/**'],
    ['pkg/.Agents/Skills/x/SKILL.md', '.agents/skills/**'],
    ['.agents/notes.md', '.agents/**, a top-level dot directory'],
    ['pkg/.agents/notes.md', null],
    ['.github/skills/review/SKILL.md', '.github/**'],
    ['.githooks/pre-commit', '.githooks/**'],
    ['mise.toml', 'mise.toml'],
    ['.mise.toml', '.mise.toml'],
    ['tools/.tool-versions', '.tool-versions'],
    ['.npmrc', '.npmrc'],
    ['web/.NPMRC', '.npmrc'],
    ['package.json', null],
    ['yarn.lock', null],
    ['src/index.ts', null],
    ['docs/github/x.md', null],
    ['claude.md.bak', null],
    ['.githubx/a', '.githubx/**, a top-level dot directory'],
    ['.githubx', null],
    ['docs/.githubx/a', null],
    ['mcp.json', null],
  ])('when the path is %j', (path, rule) => {
    it(rule === null ? 'is not protected' : `is protected by ${rule}`, () => {
      expect(protectedRule(path)).toBe(rule);
    });
  });

  describe('when a perimeter may write everything', () => {
    const perimeter = compilePerimeter(
      parseConfig('version: 1\nperimeters:\n  all:\n    read: ["**"]\n    write: ["**"]\n').perimeters[0]!,
    );
    it.each([
      '.agents/skills/deploy/SKILL.md',
      '.github/skills/review/scripts/x.py',
      '.githooks/pre-push',
      'mise.toml',
      '.tool-versions',
      '.npmrc',
    ])('still may not write %s', (path) => {
      expect(perimeter.canWrite(path).allowed).toBe(false);
    });
  });

  describe('when optional families are switched on', () => {
    it.each([
      ['package.json', ['manifests'], 'package.json, manifests family'],
      ['packages/app/package-lock.json', ['manifests'], 'package-lock.json, manifests family'],
      ['requirements-dev.txt', ['manifests'], 'requirements*.txt, manifests family'],
      ['Requirements.TXT', ['manifests'], 'requirements*.txt, manifests family'],
      ['gems/widget.gemspec', ['manifests'], '*.gemspec, manifests family'],
      ['src/App.csproj', ['manifests'], '*.csproj, manifests family'],
      ['requirements', ['manifests'], null],
      ['.travis.yml', ['ci'], '.travis.yml, ci family'],
      ['.circleci/config.yml', ['ci'], '.circleci/**, ci family'],
      ['.circleci/config.yml', [], '.circleci/**, a top-level dot directory'],
      ['ci/.circleci/config.yml', [], null],
      ['.idea/runConfigurations/x.xml', ['editors'], '.idea/**, editors family'],
      ['package.json', ['ci', 'editors'], null],
      ['.travis.yml', [], null],
      ['unknown', ['nonsense'], null],
    ])('%j with %j is %j', (path, families, rule) => {
      expect(protectedRule(path, 'perimeters.yml', families)).toBe(rule);
    });

    it('keeps the built-in set', () => {
      expect(protectedRule('CLAUDE.md', 'perimeters.yml', ['manifests'])).toBe('CLAUDE.md');
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
    it.each(PROTECTED_ENTRIES.filter((e) => !e.startsWith('/')).map((e) => [e]))(
      'protects %s itself',
      (entry) => {
        const rule = protectedRule(entry.replace('/**', '/x'));
        expect([entry, `${entry}, tools family`]).toContain(rule);
      },
    );
  });
});
