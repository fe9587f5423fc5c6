/**
 * How long the path policy takes (`npm run bench:policy`): 100,000 repository paths classified by a
 * perimeter with 50 globs (25 read, 25 write), one read and one write decision each. Each decision
 * validates the path, matches the globs and checks the protected set or credential-file rules.
 * Median of several runs after warm-up; a figure, not an assertion.
 */
import os from 'node:os';
import { compilePerimeter, DEFAULT_LIMITS, TOOL_NAMES } from '../src/policy/index.js';

const PATHS = 100_000;
const RUNS = 7;

let seed = 42;
function random(n: number): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed % n;
}
const pick = <T>(items: readonly T[]): T => items[random(items.length)]!;

const DIRS = ['src', 'test', 'docs', 'lib', 'packages', 'scripts', 'bench', 'config', '.github', 'examples'];
const SUBDIRS = ['core', 'util', 'api', 'ui', 'internal', 'fixtures', 'workflows', 'deep', 'a', 'b'];
const EXTS = ['ts', 'js', 'md', 'json', 'yml', 'css', 'png', 'pem', 'txt', 'tsx'];

function makePaths(): string[] {
  const paths: string[] = [];
  for (let i = 0; i < PATHS; i++) {
    const depth = 1 + random(5);
    const parts = [pick(DIRS)];
    for (let d = 1; d < depth; d++) parts.push(pick(SUBDIRS));
    parts.push(`file${random(1000)}.${pick(EXTS)}`);
    paths.push(parts.join('/'));
  }
  return paths;
}

function makeGlobs(count: number): string[] {
  const globs = new Set<string>();
  while (globs.size < count) {
    const [dir, sub, ext] = [pick(DIRS), pick(SUBDIRS), pick(EXTS)];
    const shapes = [
      `${dir}/${sub}/**`,
      `${dir}/**/*.${ext}`,
      `**/${sub}/*.${ext}`,
      `${dir}/*/${sub}/**`,
      `{${dir},${sub}}/**/file1*.${ext}`,
    ];
    globs.add(pick(shapes));
  }
  return [...globs];
}

function random(n: number): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed % n;
}
const pick = <T>(items: readonly T[]): T => items[random(items.length)]!;

const DIRS = ['src', 'test', 'docs', 'lib', 'packages', 'scripts', 'bench', 'config', '.github', 'examples'];
const SUBDIRS = ['core', 'util', 'api', 'ui', 'internal', 'fixtures', 'workflows', 'deep', 'a', 'b'];
const EXTS = ['ts', 'js', 'md', 'json', 'yml', 'css', 'png', 'pem', 'txt', 'tsx'];

function makePaths(): string[] {
  const paths: string[] = [];
  for (let i = 0; i < PATHS; i++) {
    const depth = 1 + random(5);
    const parts = [pick(DIRS)];
    for (let d = 1; d < depth; d++) parts.push(pick(SUBDIRS));
    parts.push(`file${random(1000)}.${pick(EXTS)}`);
    paths.push(parts.join('/'));
  }
  return paths;
}

function makeGlobs(count: number): string[] {
  const globs = new Set<string>();
  while (globs.size < count) {
    const [dir, sub, ext] = [pick(DIRS), pick(SUBDIRS), pick(EXTS)];
    const shapes = [
      `${dir}/${sub}/**`,
      `${dir}/**/*.${ext}`,
      `**/${sub}/*.${ext}`,
      `${dir}/*/${sub}/**`,
      `{${dir},${sub}}/**/file1*.${ext}`,
    ];
    globs.add(pick(shapes));
  }
  return [...globs];
}

export interface PolicyResult {
  paths: number;
  globs: number;
  runs: number;
  median_ms: number;
  min_ms: number;
  max_ms: number;
  ns_per_decision: number;
  readable: number;
  writable: number;
}

export function runPolicy(runs = 7): PolicyResult {
seed = 42;
const perimeter = compilePerimeter({
  name: 'bench',
  tools: [...TOOL_NAMES],
  read: makeGlobs(25),
  write: makeGlobs(25),
  branches: null,
  allowProtected: [],
  limits: DEFAULT_LIMITS,
  allowCredentialFiles: [],
  allowSecretsIn: [],
});
const paths = makePaths();

function classify(): { readable: number; writable: number } {
  let readable = 0;
  let writable = 0;
  for (const path of paths) {
    if (perimeter.canRead(path).allowed) readable++;
    if (perimeter.canWrite(path).allowed) writable++;
  }
  return { readable, writable };
}

classify();
const times: number[] = [];
const cpuTimes: number[] = [];
let counts = { readable: 0, writable: 0 };
for (let i = 0; i < RUNS; i++) {
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
console.log(
  `classify ${PATHS.toLocaleString('en-US')} paths against 50 globs (read + write decision each): ` +
    `median ${median.toFixed(0)} ms (min ${times[0]!.toFixed(0)} ms, max ${times.at(-1)!.toFixed(0)} ms over ${RUNS} runs)`,
);
console.log(
  `  readable ${counts.readable}, writable ${counts.writable}; ${((median * 1e6) / (2 * PATHS)).toFixed(0)} ns per decision`,
);
console.log(
  `  CPU time median ${cpuTimes[Math.floor(RUNS / 2)]!.toFixed(0)} ms (wall time grows when the machine is busy: ${os.loadavg()[0]!.toFixed(1)} load on ${os.availableParallelism()} cores)`,
);
