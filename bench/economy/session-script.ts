/**
 * The scripted agent session: what a coding agent does in one job through one perimeter endpoint. Tree
 * listings, single-file reads with repeats (a working set it keeps coming back to), batched reads, pushes of
 * 1 to 50 files with reads in between, history listings and commit lookups. Deterministic.
 */
import { prng } from '../support/measure.js';
import { fileText, type RepoModel } from './repo-model.js';

/** A commit named by its place: a push of this session (0-based) or the repository's history (0 = seed). */
export type CommitRef = { push: number } | { history: number };

export type Step =
  | { tool: 'get_tree'; args: { path?: string; recursive?: boolean } }
  | { tool: 'get_file'; args: { path: string } }
  | { tool: 'get_files'; args: { paths: string[] } }
  | { tool: 'push_files'; args: { message: string; files: Array<{ path: string; content: string }> } }
  | { tool: 'list_commits'; args: { path?: string; per_page?: number; page?: number } }
  | { tool: 'get_commit'; commit: CommitRef };

export interface SessionShape {
  singleReads: number;
  workingSet: number;
  batches: number;
  batchSize: number;
  pushSizes: number[];
}

export const FULL_SESSION: SessionShape = {
  singleReads: 48,
  workingSet: 16,
  batches: 3,
  batchSize: 10,
  pushSizes: [1, 5, 10, 50, 1],
};

export const TINY_SESSION: SessionShape = {
  singleReads: 12,
  workingSet: 5,
  batches: 1,
  batchSize: 5,
  pushSizes: [1, 10, 50],
};

/** The files at the head of the branch once the history is applied. */
export function headFiles(model: RepoModel): Map<string, string> {
  const files = new Map(Object.entries(model.files));
  for (const commit of model.history)
    for (const [path, content] of Object.entries(commit.files)) {
      if (content === null) files.delete(path);
      else files.set(path, content);
    }
  return files;
}

export function makeSession(
  model: RepoModel,
  canRead: (path: string) => boolean,
  canWrite: (path: string) => boolean,
  shape: SessionShape,
  seed = 11,
): Step[] {
  const random = prng(seed);
  const head = headFiles(model);
  const readable = [...head.keys()].filter(canRead).sort();
  const writable = readable.filter(canWrite);
  const hidden = [...head.keys()].filter((p) => !canRead(p)).sort();
  const working = new Set<string>();
  while (working.size < Math.min(shape.workingSet, writable.length)) working.add(random.pick(writable));
  const workingList = [...working];
  const pickRead = (): string => (random.next() < 0.7 ? random.pick(workingList) : random.pick(readable));
  const readsPerPhase = Math.ceil(shape.singleReads / (shape.pushSizes.length + 2));

  const steps: Step[] = [];
  let reads = 0;
  const singleReads = (count: number): void => {
    for (let i = 0; i < count && reads < shape.singleReads; i++, reads++)
      steps.push({ tool: 'get_file', args: { path: pickRead() } });
  };
  const batch = (): void => {
    const paths = new Set<string>();
    while (paths.size < Math.min(shape.batchSize, readable.length))
      paths.add(random.next() < 0.4 ? random.pick(workingList) : random.pick(readable));
    steps.push({ tool: 'get_files', args: { paths: [...paths] } });
  };

  steps.push({ tool: 'get_tree', args: { recursive: true } });
  steps.push({ tool: 'get_tree', args: { path: 'src/core' } });
  singleReads(readsPerPhase);
  steps.push({ tool: 'get_file', args: { path: random.pick(hidden) } });
  steps.push({ tool: 'get_file', args: { path: 'src/core/no-such-file.ts' } });
  let batches = 0;
  shape.pushSizes.forEach((size, push) => {
    if (batches < shape.batches) {
      batch();
      batches++;
    }
    const files: Array<{ path: string; content: string }> = [];
    const edited = workingList.slice(0, Math.min(size, 3));
    for (const path of edited) files.push({ path, content: fileText(path, 100 + push) });
    for (let i = files.length; i < size; i++) {
      const path = `src/generated/push${push}/gen${i}.ts`;
      files.push({ path, content: fileText(path, 100 + push) });
    }
    steps.push({ tool: 'push_files', args: { message: `Session push ${push + 1} (${size} files)`, files } });
    for (const path of edited) steps.push({ tool: 'get_file', args: { path } });
    singleReads(readsPerPhase);
  });
  while (batches++ < shape.batches) batch();
  steps.push({ tool: 'list_commits', args: {} });
  steps.push({ tool: 'list_commits', args: { path: 'src/core' } });
  steps.push({ tool: 'get_commit', commit: { push: 0 } });
  const readableHistory = model.history.findIndex((c) => Object.keys(c.files).some(canRead));
  if (readableHistory >= 0) steps.push({ tool: 'get_commit', commit: { history: readableHistory + 1 } });
  const hiddenHistory = model.history.findIndex((c) => !Object.keys(c.files).some(canRead));
  if (hiddenHistory >= 0) steps.push({ tool: 'get_commit', commit: { history: hiddenHistory + 1 } });
  singleReads(shape.singleReads - reads);
  return steps;
}

export function describeStep(step: Step): string {
  switch (step.tool) {
    case 'get_tree':
      return `get_tree ${step.args.path ?? '/'}${step.args.recursive ? ' (recursive)' : ''}`;
    case 'get_file':
      return `get_file ${step.args.path}`;
    case 'get_files':
      return `get_files (${step.args.paths.length} paths)`;
    case 'push_files':
      return `push_files (${step.args.files.length} files)`;
    case 'list_commits':
      return `list_commits ${step.args.path ?? '/'}${step.args.page ? ` page ${step.args.page}` : ''}`;
    case 'get_commit':
      return `get_commit ${'push' in step.commit ? `push ${step.commit.push}` : `history ${step.commit.history}`}`;
  }
}

export const QUICK_SESSION: SessionShape = {
  singleReads: 20,
  workingSet: 8,
  batches: 1,
  batchSize: 8,
  pushSizes: [1, 10, 50],
};
