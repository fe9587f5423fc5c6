import { AGENT_FILES } from './agent-files.js';
import { foldSegment } from './path.js';

/**
 * The protected set: paths never writable unless a perimeter names them in `allow-protected`. Each entry is
 * a run of path segments matched at any depth, after folding case, Unicode compatibility forms (NFKC, which
 * also unifies NFC and NFD) and trailing dots and spaces, so `.GitHub/`, `ＣＬＡＵＤＥ.md` and a decomposed
 * `é` land where a case-insensitive checkout would put them. A directory entry also matches a file of that
 * name. An entry segment may hold one `*` (`*.gemspec`, `requirements*.txt`). An entry starting with `/` is
 * anchored at the top of the repository and matches directories only (a path below it): the
 * dot-directories family's one entry is every top-level dot directory, and no top-level dot file.
 */
export interface Family {
  /** why the family is protected, as docs/configuration.md shows it */
  why: string;
  entries: readonly string[];
}

const AGENT_ENTRIES = AGENT_FILES.map((file) => file.entry);

/** Always protected (with the config file itself). */
export const BUILT_IN_FAMILIES = Object.freeze({
  repository: {
    why: 'decide who reviews, what runs in CI and how files are checked out; GITHUB_TOKEN cannot even write workflows',
    entries: ['.github/**', 'CODEOWNERS', '.gitmodules', '.gitattributes'],
  },
  agents: {
    why: 'instructions and settings of coding agents: whoever writes them steers the next agent, in this job, a later one or on a developer machine',
    // every file agents read (src/policy/agent-files.ts) but those another entry already names: all of
    // .github is the repository family's, and `name/**` adds nothing where `name` is listed
    entries: AGENT_ENTRIES.filter(
      (entry) =>
        !entry.startsWith('.github/') &&
        !(entry.endsWith('/**') && AGENT_ENTRIES.includes(entry.slice(0, -3))),
    ),
  },
  hooks: {
    why: 'run code on the machine of whoever next commits, opens, enters or installs the repository (git hooks, direnv, mise and asdf tool versions, npm settings such as the registry, editor tasks, dev containers), outside any review of the code',
    entries: [
      '.husky/**',
      '.githooks/**',
      '.pre-commit-config.yaml',
      '.pre-commit-hooks.yaml',
      'lefthook.yml',
      '.lefthook.yml',
      'lefthook-local.yml',
      '.envrc',
      'mise.toml',
      '.mise.toml',
      '.tool-versions',
      '.npmrc',
      '.vscode/settings.json',
      '.vscode/tasks.json',
      '.vscode/launch.json',
      '.vscode/extensions.json',
      '.devcontainer/**',
      '.devcontainer.json',
    ],
  },
  tools: {
    why: 'configuration that package managers, build tools and CI read from the repository: a changed registry, credential helper, build flag or pipeline runs code in CI and on every machine that builds it',
    entries: [
      '.cargo/config.toml',
      '.cargo/config',
      '.yarnrc.yml',
      '.yarnrc',
      '.pnpmfile.cjs',
      'bunfig.toml',
      '.bazelrc',
      '.bazelversion',
      '.mvn/**',
      'gradle.properties',
      'gradle/wrapper/**',
      'pip.conf',
      '.condarc',
      'nuget.config',
      '.gemrc',
      '.gitlab/**',
      '.gitlab-ci.yml',
      '.config/**',
    ],
  },
  'dot-directories': {
    why: 'every other top-level dot directory, as GitHub Agentic Workflows protects them: tools keep their settings there, and a new tool’s is protected before anyone lists it',
    entries: ['/.*/**'],
  },
} satisfies Record<string, Family>);

/** Protected when perimeters.yml says `protect: [name, ...]` (top level or per perimeter). */
export const OPTIONAL_FAMILIES = Object.freeze({
  manifests: {
    why: 'package manifests and lockfiles: a new or changed dependency runs its code in CI and on every machine that installs it',
    entries: [
      'package.json',
      'package-lock.json',
      'npm-shrinkwrap.json',
      'yarn.lock',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'bun.lock',
      'bun.lockb',
      'deno.json',
      'deno.jsonc',
      'deno.lock',
      'Cargo.toml',
      'Cargo.lock',
      'go.mod',
      'go.sum',
      'go.work',
      'pyproject.toml',
      'poetry.lock',
      'uv.lock',
      'Pipfile',
      'Pipfile.lock',
      'requirements*.txt',
      'setup.py',
      'setup.cfg',
      'Gemfile',
      'Gemfile.lock',
      '*.gemspec',
      'composer.json',
      'composer.lock',
      'pom.xml',
      'build.gradle',
      'build.gradle.kts',
      'settings.gradle',
      'settings.gradle.kts',
      'gradle.lockfile',
      '*.csproj',
      'packages.lock.json',
      'Directory.Packages.props',
      'Package.swift',
      'Package.resolved',
      'mix.exs',
      'mix.lock',
      'pubspec.yaml',
      'pubspec.lock',
      'flake.nix',
      'flake.lock',
    ],
  },
  ci: {
    why: 'pipelines of other CI systems: they run with those systems’ secrets',
    entries: [
      '.circleci/**',
      '.travis.yml',
      'azure-pipelines.yml',
      '.azure-pipelines/**',
      'Jenkinsfile',
      '.buildkite/**',
      'bitbucket-pipelines.yml',
      '.drone.yml',
      '.woodpecker/**',
      '.woodpecker.yml',
      'cloudbuild.yaml',
      'buildspec.yml',
      'appveyor.yml',
    ],
  },
  editors: {
    why: 'settings of other editors that can run commands when a project opens (JetBrains run configurations, Zed tasks, Vim and Neovim local config)',
    entries: [
      '.idea/**',
      '.zed/**',
      '.helix/**',
      '.fleet/**',
      '.nvim.lua',
      '.nvimrc',
      '.exrc',
      '*.code-workspace',
    ],
  },
} satisfies Record<string, Family>);

export type OptionalFamily = keyof typeof OPTIONAL_FAMILIES;
export const OPTIONAL_FAMILY_NAMES = Object.keys(OPTIONAL_FAMILIES) as OptionalFamily[];

export function isOptionalFamily(name: string): name is OptionalFamily {
  return Object.hasOwn(OPTIONAL_FAMILIES, name);
}

/** Every built-in entry (the config file comes on top). */
export const PROTECTED_ENTRIES: readonly string[] = Object.freeze(
  Object.values(BUILT_IN_FAMILIES).flatMap((family) => family.entries),
);

export const DEFAULT_CONFIG_FILE = 'perimeters.yml';

interface Entry {
  /** how the rule is named in decisions: the entry, with its optional family */
  rule: string;
  segments: Array<string | { prefix: string; suffix: string }>;
  /** matched at the top of the repository only, and (a `/**` entry) only as a directory */
  anchored: boolean;
}

interface Entries {
  list: Entry[];
  /** Cheap exact test for ASCII paths: does any segment fold to the first name of an entry? */
  prefilter: RegExp;
}

const ASCII = /^[\x20-\x7e]*$/;

function toEntry(text: string, rule: string = text): Entry {
  const anchored = text.startsWith('/');
  const segments = text
    .replace(/\/\*\*$/, '')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .map((s) => {
      const star = s.indexOf('*');
      if (star === -1) return foldSegment(s);
      // a prefix is not a whole name: its trailing dots stay (`.` of `.*` is a dot name's first character)
      const prefix = foldSegment(`${s.slice(0, star)}x`).slice(0, -1);
      return { prefix, suffix: foldSegment(s.slice(star + 1)) };
    });
  return { rule, segments, anchored };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * How a built-in entry is named in decisions: the entry itself for the first three families (as they always
 * were), with its family for the tools family, and the directory for the dot-directories catch-all.
 */
const BUILT_IN = Object.entries(BUILT_IN_FAMILIES)
  .filter(([name]) => name !== 'dot-directories')
  .flatMap(([name, family]) =>
    family.entries.map((entry) => toEntry(entry, name === 'tools' ? `${entry}, tools family` : entry)),
  );
const DOT_DIRECTORIES = BUILT_IN_FAMILIES['dot-directories'].entries.map((entry) =>
  toEntry(entry, 'a top-level dot directory'),
);
const cache = new Map<string, Entries>();

function entriesFor(configFile: string, families: readonly string[]): Entries {
  const key = `${configFile}\n${families.join(',')}`;
  let entries = cache.get(key);
  if (!entries) {
    const optional = families
      .filter(isOptionalFamily)
      .flatMap((name) =>
        OPTIONAL_FAMILIES[name].entries.map((entry) => toEntry(entry, `${entry}, ${name} family`)),
      );
    // the catch-all for top-level dot directories last, so a family that names the directory names the rule
    const list = [toEntry(configFile), ...BUILT_IN, ...optional, ...DOT_DIRECTORIES].filter(
      (e) => e.segments.length > 0,
    );
    const firsts = [
      ...new Set(
        list.map((e) => {
          const first = e.segments[0]!;
          return typeof first === 'string'
            ? escape(first)
            : `${escape(first.prefix)}[^/]*${escape(first.suffix)}`;
        }),
      ),
    ];
    const prefilter = new RegExp(`(?:^|/)(?:${firsts.join('|')})[. ]*(?:/|$)`, 'i');
    entries = { list, prefilter };
    if (cache.size > 16) cache.clear();
    cache.set(key, entries);
  }
  return entries;
}

function segmentMatches(segment: string, pattern: Entry['segments'][number]): boolean {
  if (typeof pattern === 'string') return segment === pattern;
  return (
    segment.length >= pattern.prefix.length + pattern.suffix.length &&
    segment.startsWith(pattern.prefix) &&
    segment.endsWith(pattern.suffix)
  );
}

function containsRun(haystack: string[], needle: Entry['segments']): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (!segmentMatches(haystack[i + j]!, needle[j]!)) continue outer;
    return true;
  }
  return false;
}

/**
 * The protected-set entry matching this (validated) path, or null: the built-in set, the config file, and
 * the optional `families` switched on. Case/Unicode-NF insensitive, any depth.
 */
export function protectedRule(
  path: string,
  configFile: string = DEFAULT_CONFIG_FILE,
  families: readonly string[] = [],
): string | null {
  const entries = entriesFor(configFile, families);
  if (ASCII.test(path) && !entries.prefilter.test(path)) return null;
  const segments = path.split('/').map(foldSegment);
  for (const entry of entries.list) {
    if (!entry.anchored) {
      if (containsRun(segments, entry.segments)) return entry.rule;
    } else if (
      segments.length > entry.segments.length &&
      containsRun(segments.slice(0, entry.segments.length), entry.segments)
    )
      // the directory the path is in, as named in the path: `.changeset/**, a top-level dot directory`
      return `${path.split('/', entry.segments.length).join('/')}/**, ${entry.rule}`;
  }
  return null;
}
