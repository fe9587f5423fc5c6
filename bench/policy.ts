/**
 * How long the path policy takes (a section of `npm run bench`; alone: `npm run bench:policy`): 100,000
 * repository paths classified by a perimeter with 50 globs (25 read, 25 write), one read and one write
 * decision each. Each decision validates the path, matches the globs and checks the protected set or
 * credential-file rules. Median of several runs after warm-up, wall and CPU time (wall time grows when the
 * machine is busy); a figure, not an assertion.
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import picomatch from 'picomatch';
import { compiledPerimeter } from '@perimeter/test-rigs';
import { GLOB_OPTIONS } from '../src/policy/index.js';
import { compileGlobList } from '../src/policy/glob.js';

const PATHS = 100_000;
const GLOBS = 50;

const DIRS = ['src', 'test', 'docs', 'lib', 'packages', 'scripts', 'bench', 'config', '.github', 'examples'];
const SUBDIRS = ['core', 'util', 'api', 'ui', 'internal', 'fixtures', 'workflows', 'deep', 'a', 'b'];
const EXTS = ['ts', 'js', 'md', 'json', 'yml', 'css', 'png', 'pem', 'txt', 'tsx'];

export interface PolicyResult {
  paths: number;
  globs: number;
  runs: number;
  median_ms: number;
  min_ms: number;
  max_ms: number;
  cpu_median_ms: number;
  ns_per_decision: number;
  readable: number;
  writable: number;
}

function generator(): { random(n: number): number; pick<T>(items: readonly T[]): T } {
  let seed = 42;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  return { random, pick: (items) => items[random(items.length)]! };
}

function makePaths(g: ReturnType<typeof generator>): string[] {
  const paths: string[] = [];
  for (let i = 0; i < PATHS; i++) {
    const depth = 1 + g.random(5);
    const parts = [g.pick(DIRS)];
    for (let d = 1; d < depth; d++) parts.push(g.pick(SUBDIRS));
    parts.push(`file${g.random(1000)}.${g.pick(EXTS)}`);
    paths.push(parts.join('/'));
  }
  return paths;
}

function makeGlobs(g: ReturnType<typeof generator>, count: number): string[] {
  const globs = new Set<string>();
  while (globs.size < count) {
    const [dir, sub, ext] = [g.pick(DIRS), g.pick(SUBDIRS), g.pick(EXTS)];
    const shapes = [
      `${dir}/${sub}/**`,
      `${dir}/**/*.${ext}`,
      `**/${sub}/*.${ext}`,
      `${dir}/*/${sub}/**`,
      `{${dir},${sub}}/**/file1*.${ext}`,
    ];
    globs.add(g.pick(shapes));
  }
  return [...globs];
}

export function runPolicy(runs = 7): PolicyResult {
  const g = generator();
  const perimeter = compiledPerimeter({
    name: 'bench',
    read: makeGlobs(g, GLOBS / 2),
    write: makeGlobs(g, GLOBS / 2),
  });
  const paths = makePaths(g);
  const classify = (): { readable: number; writable: number } => {
    let readable = 0;
    let writable = 0;
    for (const path of paths) {
      if (perimeter.canRead(path).allowed) readable++;
      if (perimeter.canWrite(path).allowed) writable++;
    }
    return { readable, writable };
  };

  classify();
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let counts = { readable: 0, writable: 0 };
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    counts = classify();
    const used = process.cpuUsage(cpu);
    times.push(performance.now() - start);
    cpuTimes.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  return {
    paths: PATHS,
    globs: GLOBS,
    runs,
    median_ms: Math.round(median),
    min_ms: Math.round(times[0]!),
    max_ms: Math.round(times.at(-1)!),
    cpu_median_ms: Math.round(cpuTimes[Math.floor(cpuTimes.length / 2)]!),
    ns_per_decision: Math.round((median * 1e6) / (2 * PATHS)),
    ...counts,
  };
}

export interface HostileRow {
  glob: string;
  path_bytes: number;
  /** one decision with Perimeter's matcher (git-glob.ts), median of 5 */
  ms: number;
  /** the same decision with picomatch's expression (the matcher before), one run; null: not run (minutes) */
  picomatch_ms: number | null;
}

/**
 * Globs with several stars against paths crafted to make a backtracking matcher try every split (issue 11:
 * `**\/*_*_*_*_*.py` held the post step and the gateway). The picomatch column is the matcher before; its
 * worst rows are left out here because they take minutes (`*_*\/*_*\/*_*\/*_*.py` on 3,766 bytes: 325 s).
 */
export function runHostile(): HostileRow[] {
  const name = (n: number) => '_'.repeat(n);
  const cases: Array<[string, string, boolean]> = [
    ['*_*_*_*.py', `${name(254)}/q`, true],
    ['**/*_*_*.py', `${`${name(250)}/`.repeat(15)}q`, true],
    ['**/x/**/x/**/y', `${'x/'.repeat(200)}z`, true],
    ['**/*_*_*_*_*.py', `${name(200)}/${name(250)}.pyc`, false],
    ['**/x/**/x/**/y', `${'x/'.repeat(2040)}z`, false],
    ['*_*/*_*/*_*/*_*.py', `${`${name(250)}/`.repeat(15)}q`, false],
  ];
  return cases.map(([glob, path, comparable]) => {
    const ours = compileGlobList([glob]);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      ours.find(path);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    let picomatchMs: number | null = null;
    if (comparable) {
      const theirs = picomatch.makeRe(glob, GLOB_OPTIONS);
      const start = performance.now();
      theirs.test(path);
      picomatchMs = round(performance.now() - start);
    }
    return { glob, path_bytes: path.length, ms: round(times[2]!), picomatch_ms: picomatchMs };
  });
}

export function describeHostile(rows: HostileRow[]): string {
  return [
    'hostile globs on crafted paths, one decision (Perimeter / picomatch before):',
    ...rows.map(
      (r) =>
        `  ${r.glob} on ${r.path_bytes} bytes: ${r.ms} ms / ${r.picomatch_ms === null ? 'not run (minutes)' : `${r.picomatch_ms} ms`}`,
    ),
  ].join('\n');
}

export function describePolicy(r: PolicyResult): string {
  return [
    `classify ${r.paths.toLocaleString('en-US')} paths against ${r.globs} globs (read + write decision each): ` +
      `median ${r.median_ms} ms (min ${r.min_ms} ms, max ${r.max_ms} ms over ${r.runs} runs)`,
    `  readable ${r.readable}, writable ${r.writable}; ${r.ns_per_decision} ns per decision`,
    `  CPU time median ${r.cpu_median_ms} ms (wall time grows when the machine is busy: ` +
      `${os.loadavg()[0]!.toFixed(1)} load on ${os.availableParallelism()} cores)`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  console.log(`${describePolicy(runPolicy())}\n${describeHostile(runHostile())}`);
