/**
 * The workflows README.md and docs/ show (a block after `<!-- agents-test: NAME -->` or `<!-- NAME -->`, on
 * exactly one page, found by its marker wherever it moves), run step by step as a runner would: the perimeter step is the action's dist/main, `run:` steps go to bash with their
 * `env:` and `${{ … }}` expressions expanded, install lines are answered from the pinned cache (and must
 * name the pinned versions), checkout is the stand-in's workspace made a git repository.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { PINNED } from './clients.js';

export interface SnippetStep {
  id?: string;
  name?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  run?: string;
  'working-directory'?: string;
}

/** The pages that show workflows: README.md and docs/, from the repository root. */
export const PAGES = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/**
 * The one page of PAGES holding the block marked `<!-- agents-test: name -->` or `<!-- name -->`: a block
 * moves between pages with its text, and the suites that run it find it there. None, or two, is an error.
 */
export function pageOf(name: string): string {
  const markers = [`<!-- agents-test: ${name} -->`, `<!-- ${name} -->`];
  const found = PAGES.filter((file) => {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    return markers.some((marker) => text.includes(marker));
  });
  if (found.length === 0) throw new Error(`no page of README.md and docs/ has a block marked ${markers[1]}`);
  if (found.length > 1) throw new Error(`${markers[1]} marks a block on ${found.join(' and ')}: mark one`);
  return found[0]!;
}

/** The steps of the snippet marked `<!-- agents-test: name -->` in `file` (from the repository root). */
export function readmeSteps(name: string, file = pageOf(name)): SnippetStep[] {
  const readme = readFileSync(join(REPO_ROOT, file), 'utf8');
  const marker = `<!-- agents-test: ${name} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no snippet marked ${marker}`);
  const block = /^```yaml\n([\s\S]*?)^```/m.exec(readme.slice(at + marker.length));
  if (!block?.[1]) throw new Error(`no yaml block after ${marker}`);
  const doc = parseYaml(block[1]) as {
    steps?: SnippetStep[];
    jobs?: Record<string, { steps?: SnippetStep[] }>;
  };
  const steps = doc.steps ?? Object.values(doc.jobs ?? {})[0]?.steps;
  if (!Array.isArray(steps)) throw new Error(`the block after ${marker} has no steps`);
  return steps;
}

/**
 * The YAML text of the workflow marked `<!-- agents-test: name -->` or `<!-- name -->` in `file`: a whole
 * workflow, run as it stands by the workflow runner.
 */
export function readmeWorkflow(name: string, file = pageOf(name)): string {
  const readme = readFileSync(join(REPO_ROOT, file), 'utf8');
  const markers = [`<!-- agents-test: ${name} -->`, `<!-- ${name} -->`];
  const marker = markers.find((m) => readme.includes(m));
  if (marker === undefined) throw new Error(`${file} has no workflow marked ${markers.join(' or ')}`);
  const block = /^```yaml\n([\s\S]*?)^```/m.exec(readme.slice(readme.indexOf(marker) + marker.length));
  if (!block?.[1]) throw new Error(`no yaml block after ${marker}`);
  return block[1];
}

/** The JSON block after `<!-- agents-test: name -->` in `file`. */
export function readmeJson(name: string, file = pageOf(name)): unknown {
  const readme = readFileSync(join(REPO_ROOT, file), 'utf8');
  const marker = `<!-- agents-test: ${name} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no snippet marked ${marker}`);
  const block = /^```json\n([\s\S]*?)^```/m.exec(readme.slice(at + marker.length));
  if (!block?.[1]) throw new Error(`no json block after ${marker}`);
  return JSON.parse(block[1]);
}

export interface Expressions {
  outputs: Record<string, string>;
  runnerTemp: string;
  secrets: Record<string, string>;
  inputs: Record<string, string>;
}

/** `${{ … }}` as the runner expands it, for the few expressions the snippets use; anything else throws. */
export function expand(text: string, x: Expressions): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    let m: RegExpExecArray | null;
    if ((m = /^steps\.perimeter\.outputs\.([a-z-]+)$/.exec(expr))) return need(x.outputs, m[1]!, expr);
    if (expr === 'runner.temp') return x.runnerTemp;
    if ((m = /^secrets\.([A-Z_]+)$/.exec(expr))) return need(x.secrets, m[1]!, expr);
    if ((m = /^inputs\.([a-z_-]+)$/.exec(expr))) return need(x.inputs, m[1]!, expr);
    throw new Error(`README snippet: unsupported expression \${{ ${expr} }}`);
  });
}

function need(map: Record<string, string>, key: string, expr: string): string {
  const value = map[key];
  if (value === undefined) throw new Error(`README snippet: nothing for \${{ ${expr} }}`);
  return value;
}

/**
 * `npm install [-g] pkg@version`: the package and version it names, which must be pinned here (so README and
 * the tested clients cannot drift). Null when the line is no such install.
 */
export function installLine(run: string): { pkg: string; global: boolean } | null {
  const m = /^npm install( -g)? (@[a-z0-9-]+\/[a-z0-9-]+)@(\S+)\s*$/.exec(run.trim());
  if (!m) return null;
  const pkg = m[2] as keyof typeof PINNED;
  if (!(pkg in PINNED)) throw new Error(`README installs ${pkg}, which the agents suite does not pin`);
  if (PINNED[pkg] !== m[3]) {
    throw new Error(`README installs ${pkg}@${m[3]}, the agents suite pins ${PINNED[pkg]}`);
  }
  return { pkg, global: m[1] !== undefined };
}

/**
 * The table "can the agent reach a write token?" (after `<!-- token-reach -->`, in docs/agents.md): by workflow
 * marker, whether the job's token is in the agent step's reach, and whether that token can write.
 */
export function reachTable(file = pageOf('token-reach')): Map<string, { token: string; write: string }> {
  const readme = readFileSync(join(REPO_ROOT, file), 'utf8');
  const marker = '<!-- token-reach -->';
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no table marked ${marker}`);
  const rows = new Map<string, { token: string; write: string }>();
  for (const line of readme
    .slice(at + marker.length)
    .trimStart()
    .split('\n')) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const snippet = /^`([a-z-]+)`$/.exec(cells[1] ?? '')?.[1];
    if (snippet === undefined) continue;
    rows.set(snippet, {
      token: /^(yes|no)\b/.exec(cells[2] ?? '')?.[1] ?? '',
      write: /^(yes|no)\b/.exec(cells[3] ?? '')?.[1] ?? '',
    });
  }
  return rows;
}
