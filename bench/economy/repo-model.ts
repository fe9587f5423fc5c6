/**
 * A realistic repository for the request-economy session: a few thousand files over source, tests, docs,
 * specs and infrastructure, a history of small commits, and a perimeters.yml with a handful of perimeters.
 * Deterministic: the same size and seed give the same files and history.
 */
import { prng } from '../support/measure.js';

export interface HistoryCommit {
  message: string;
  files: Record<string, string | null>;
}

export interface RepoModel {
  files: Record<string, string>;
  /** commits on top of the seed commit, oldest first */
  history: HistoryCommit[];
  config: string;
}

export interface RepoSize {
  files: number;
  historyCommits: number;
}

export const CONFIG = `version: 1
perimeters:
  implementer:
    description: Writes the implementation from the spec and the tests.
    read: ["specs/**", "test/**", "src/**", "package.json"]
    write: ["src/**"]
    branches: ["main"]
  test-author:
    description: Writes tests from the spec; never sees the implementation.
    read: ["specs/**", "test/**", "package.json"]
    write: ["test/**"]
    branches: ["main"]
  docs:
    read: ["docs/**", "specs/**", "README.md"]
    write: ["docs/**", "README.md"]
    branches: ["main"]
  infra:
    read: ["infra/**", "scripts/**", "package.json"]
    write: ["infra/**"]
    branches: ["main"]
  reviewer:
    read: ["**"]
    write: ["review/**"]
    branches: ["main"]
`;

/** Share of files per top-level directory, and the modules below it. */
const LAYOUT: Array<{ dir: string; share: number; modules: string[]; exts: string[] }> = [
  {
    dir: 'src',
    share: 0.4,
    modules: ['core', 'api', 'ui', 'util', 'db', 'auth', 'jobs', 'cli', 'net', 'store'],
    exts: ['ts', 'ts', 'tsx', 'json'],
  },
  {
    dir: 'test',
    share: 0.25,
    modules: ['core', 'api', 'ui', 'util', 'db', 'auth', 'e2e', 'fixtures'],
    exts: ['ts'],
  },
  { dir: 'docs', share: 0.12, modules: ['guide', 'reference', 'adr', 'howto'], exts: ['md'] },
  { dir: 'specs', share: 0.05, modules: ['features', 'api'], exts: ['md', 'yml'] },
  { dir: 'infra', share: 0.08, modules: ['terraform', 'k8s', 'docker'], exts: ['tf', 'yml', 'json'] },
  { dir: 'scripts', share: 0.03, modules: ['release', 'dev'], exts: ['sh', 'mjs'] },
  { dir: 'examples', share: 0.07, modules: ['basic', 'advanced', 'plugins'], exts: ['ts', 'md'] },
];
const SUBDIRS = ['', '', 'internal', 'helpers', 'models', 'handlers'];

/** Text of a file: a couple of KB of code-like lines, unique to its path and version. */
export function fileText(path: string, version = 0, lines = 40): string {
  const rows = [`// ${path} (version ${version})`];
  for (let i = 0; i < lines; i++)
    rows.push(`export const value${i} = ${JSON.stringify(`${path}:${version}:${i}`)}; // some ordinary code`);
  return `${rows.join('\n')}\n`;
}

export function makeRepo(size: RepoSize, seed = 7): RepoModel {
  const random = prng(seed);
  const files: Record<string, string> = {
    'package.json': '{ "name": "widgets", "version": "1.0.0" }\n',
    'README.md': '# widgets\n',
    'perimeters.yml': CONFIG,
    '.github/workflows/agent.yml': 'on: workflow_dispatch\n',
  };
  const lines = size.files < 1000 ? 8 : 40;
  for (const { dir, share, modules, exts } of LAYOUT) {
    const count = Math.max(modules.length, Math.round(size.files * share));
    for (let i = 0; i < count; i++) {
      const module = modules[i % modules.length]!;
      const sub = random.pick(SUBDIRS);
      const path = [dir, module, sub, `file${i}.${random.pick(exts)}`].filter(Boolean).join('/');
      files[path] = fileText(path, 0, lines);
    }
  }
  const paths = Object.keys(files).filter((p) => p.includes('/') && !p.startsWith('.github/'));
  const history: HistoryCommit[] = [];
  for (let c = 0; c < size.historyCommits; c++) {
    const anchor = random.pick(paths);
    const dir = anchor.slice(0, anchor.lastIndexOf('/'));
    const siblings = paths.filter((p) => p.startsWith(`${dir}/`));
    const changed: Record<string, string | null> = {};
    const n = 1 + random.int(3);
    for (let i = 0; i < n; i++) {
      const path = random.pick(siblings);
      changed[path] = fileText(path, c + 1, lines);
    }
    history.push({ message: `Change ${dir} (${c + 1})`, files: changed });
  }
  return { files, history, config: CONFIG };
}
