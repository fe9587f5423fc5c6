import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * Events people without write access can start: a comment, an issue, a pull request from a fork (which runs
 * with this repository's token and secrets under pull_request_target).
 * https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-github-actions
 */
const OUTSIDER_EVENTS = ['issue_comment', 'issues', 'pull_request_target'] as const;

export interface WorkflowWarning {
  /** the workflow file, relative to the checkout */
  file: string;
  events: string[];
}

type Json = Record<string, unknown>;

function events(on: unknown): string[] {
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.filter((e): e is string => typeof e === 'string');
  if (typeof on === 'object' && on !== null) return Object.keys(on);
  return [];
}

/** Whether a step of the workflow uses Perimeter (an action whose name is `perimeter`, or this checkout's own). */
function usesPerimeter(doc: Json): boolean {
  const jobs = typeof doc.jobs === 'object' && doc.jobs !== null ? Object.values(doc.jobs as Json) : [];
  return jobs.some((job) => {
    const steps = (job as Json | null)?.steps;
    return (
      Array.isArray(steps) &&
      steps.some((step) => {
        const uses = (step as Json | null)?.uses;
        return typeof uses === 'string' && /(?:^|\/)perimeter(?:@|\/|$)/i.test(uses.trim());
      })
    );
  });
}

/**
 * Workflows in `root/.github/workflows` that run Perimeter on an event outsiders can start. Unreadable or
 * unparsable files are skipped: `check` reports on perimeters.yml, GitHub reports broken workflows.
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
    if (typeof doc !== 'object' || doc === null) continue;
    const on = (doc as Json).on ?? (doc as Json).true;
    const risky = events(on).filter((e) => (OUTSIDER_EVENTS as readonly string[]).includes(e));
    if (risky.length > 0 && usesPerimeter(doc as Json))
      found.push({ file: `.github/workflows/${name}`, events: risky });
  }
  return found;
}
