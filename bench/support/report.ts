/** results.json and the figures table in BENCHMARKS.md (between the results markers). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@perimeter/test-rigs';

export const RESULTS_PATH = join(REPO_ROOT, 'bench', 'results.json');
export const BENCHMARKS_PATH = join(REPO_ROOT, 'BENCHMARKS.md');
const START = '<!-- results:start (written by npm run bench) -->';
const END = '<!-- results:end -->';

export interface Target {
  name: string;
  target: string;
  value: string;
  met: boolean | null;
}

export function writeResults(results: object): void {
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
}

/** Replaces the table between the markers; appends the markers when the file has none. */
export function writeTable(markdown: string): void {
  let text: string;
  try {
    text = readFileSync(BENCHMARKS_PATH, 'utf8');
  } catch {
    text = '# Benchmarks\n\n';
  }
  const block = `${START}\n${markdown.trim()}\n${END}`;
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  const next =
    from >= 0 && to > from
      ? text.slice(0, from) + block + text.slice(to + END.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(BENCHMARKS_PATH, next);
}

export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>): string => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export const mark = (met: boolean | null): string => (met === null ? 'not run' : met ? 'met' : '**missed**');
