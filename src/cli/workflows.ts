import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ITEM_EVENTS, triggerItem } from '../policy/index.js';

/**
 * Events people without write access can start: those whose run carries an item someone authored (a comment,
 * an issue, a pull request from a fork, which runs with this repository's token and secrets under
 * pull_request_target).
 * https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-github-actions
 */
const OUTSIDER_EVENTS = ITEM_EVENTS;

/** Associations of people who may push (or belong to the owning organization), as README's `if:` names them. */
const PUSHING_ASSOCIATIONS = ['OWNER', 'MEMBER', 'COLLABORATOR'];

export interface WorkflowWarning {
  /** the workflow file, relative to the checkout */
  file: string;
  /** the job that starts an agent */
  job: string;
  events: string[];
}

/** Which of Perimeter's actions a step runs: the one that starts the gateway for an agent, or verify or apply. */
export type PerimeterAction = 'agent' | 'verify' | 'apply';

type Json = Record<string, unknown>;

const object = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;

function events(on: unknown): string[] {
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.filter((e): e is string => typeof e === 'string');
  return Object.keys(object(on) ?? {});
}

const isPerimeter = (segment: string | undefined) => /^\.?perimeter$/i.test(segment ?? '');

/**
 * The Perimeter action a step's `uses:` names, or null for any other: `OWNER/perimeter@REF` (or a checkout of
 * it at `./.perimeter`) starts the gateway; `OWNER/perimeter/verify@REF` is the verify job or, without
 * `agent-job`, the pull-request gate; `OWNER/perimeter/apply@REF` applies a staged change set. The last two
 * start no agent.
 */
export function perimeterAction(uses: string): PerimeterAction | null {
  const text = uses.trim();
  const local = text.startsWith('./');
  const path = local ? text.slice(2) : /^[^/@\s]+\/([^@\s]+)@[^@\s]+$/.exec(text)?.[1];
  if (path === undefined) return null;
  const segments = path.split('/').filter((s) => s !== '');
  const last = segments.at(-1);
  if (isPerimeter(last)) return 'agent';
  if ((last === 'verify' || last === 'apply') && isPerimeter(segments.at(-2))) return last;
  return null;
}

/**
 * Where the token starting at `i` ends: the closing quote of a string ('' escapes a quote), the parenthesis
 * closing one that opens there, or `i` itself; -1 when the text ends first.
 */
function tokenEnd(text: string, i: number): number {
  if (text[i] === "'") {
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] !== "'") continue;
      if (text[j + 1] !== "'") return j;
      j++;
    }
    return -1;
  }
  if (text[i] !== '(') return i;
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    j = text[j] === "'" ? tokenEnd(text, j) : j;
    if (j < 0) return -1;
    if (text[j] === '(') depth++;
    else if (text[j] === ')' && --depth === 0) return j;
  }
  return -1;
}

/**
 * The operands that must all hold for an expression to be true: those of its top-level `&&`, parentheses
 * around an operand looked through. An `||` at the top level requires no single operand, so it gives none.
 * `${{ }}` is optional in `if:`.
 */
function conjuncts(expression: string): string[] {
  const text = expression
    .trim()
    .replace(/^\$\{\{([\s\S]*)\}\}$/, '$1')
    .trim();
  if (text.startsWith('(') && tokenEnd(text, 0) === text.length - 1) return conjuncts(text.slice(1, -1));
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    i = tokenEnd(text, i);
    if (i < 0 || text.startsWith('||', i)) return [];
    if (text.startsWith('&&', i)) {
      parts.push(text.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  parts.push(text.slice(start));
  return parts.flatMap((p) => (p.trim().startsWith('(') ? conjuncts(p) : [p.trim()]));
}

/**
 * The item (`comment`, `issue`, …) whose author's association an operand requires to be one of the pushing
 * ones: `contains(fromJSON('["OWNER", …]'), github.event.comment.author_association)` or
 * `github.event.comment.author_association == 'OWNER'`. Null for any other operand.
 */
function associationGuard(operand: string): string | null {
  const field = String.raw`github\.event\.(\w+)\.author_association`;
  const list = new RegExp(
    String.raw`^contains\(\s*fromJSON\(\s*'([^']*)'\s*\)\s*,\s*${field}\s*\)$`,
    'i',
  ).exec(operand);
  if (list) {
    let names: unknown;
    try {
      names = JSON.parse(list[1]!);
    } catch {
      return null;
    }
    const pushing =
      Array.isArray(names) &&
      names.length > 0 &&
      names.every((n) => typeof n === 'string' && PUSHING_ASSOCIATIONS.includes(n));
    return pushing ? list[2]!.toLowerCase() : null;
  }
  const equal =
    new RegExp(String.raw`^${field}\s*==\s*'(\w+)'$`, 'i').exec(operand) ??
    new RegExp(String.raw`^'(\w+)'\s*==\s*${field}$`, 'i').exec(operand);
  if (!equal) return null;
  const [item, association] = /^'/.test(operand) ? [equal[2]!, equal[1]!] : [equal[1]!, equal[2]!];
  return PUSHING_ASSOCIATIONS.includes(association) ? item.toLowerCase() : null;
}

/**
 * The events a job's `if:` admits only from people who may push, as perimeters.yml `trust` would: an operand
 * of its top-level `&&` requires the association of the event's own item (the comment on `issue_comment`, the
 * issue on `issues`). Never a pull request's (`pull_request_target`, `pull_request`): there trust also judges
 * the sender, who may not be the pull request's author, and no association names the sender.
 */
function guardedEvents(condition: unknown, risky: string[]): Set<string> {
  if (typeof condition !== 'string') return new Set();
  const items = new Set(
    conjuncts(condition)
      .map(associationGuard)
      .filter((i) => i !== null),
  );
  items.delete('pull_request');
  return new Set(risky.filter((e) => items.has(triggerItem(e) ?? '')));
}

/** Whether a job has a step that starts Perimeter's gateway, so an agent in the job gets perimeters. */
function startsAgent(job: Json): boolean {
  const steps = Array.isArray(job.steps) ? job.steps : [];
  return steps.some((step) => {
    const uses = object(step)?.uses;
    return typeof uses === 'string' && perimeterAction(uses) === 'agent';
  });
}

/** The warnings for one parsed workflow: each job that starts an agent on events outsiders can start. */
export function workflowWarnings(file: string, doc: unknown): WorkflowWarning[] {
  const workflow = object(doc);
  if (workflow === null) return [];
  // YAML 1.1 readers turn a bare `on` key into `true`; the `yaml` package (1.2) keeps it, but be lenient
  const risky = events(workflow.on ?? workflow.true).filter((e) => OUTSIDER_EVENTS.includes(e));
  if (risky.length === 0) return [];
  const found: WorkflowWarning[] = [];
  for (const [name, value] of Object.entries(object(workflow.jobs) ?? {})) {
    const job = object(value);
    if (job === null || !startsAgent(job)) continue;
    const guarded = guardedEvents(job.if, risky);
    const open = risky.filter((e) => !guarded.has(e));
    if (open.length > 0) found.push({ file, job: name, events: open });
  }
  return found;
}

/**
 * Jobs in `root/.github/workflows` that start an agent with Perimeter on an event outsiders can start, unless
 * the job's `if:` admits only people who may push. Unreadable or unparsable files are skipped: `check` reports
 * on perimeters.yml, GitHub reports broken workflows.
 */
export function outsiderWorkflows(root: string): WorkflowWarning[] {
  const dir = join(root, '.github', 'workflows');
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));
  } catch {
    return [];
  }
  const found: WorkflowWarning[] = [];
  for (const name of names.sort()) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(join(dir, name), 'utf8'));
    } catch {
      continue;
    }
    found.push(...workflowWarnings(`.github/workflows/${name}`, doc));
  }
  return found;
}
