import { unprocessable, validationFailed } from './http-util.js';
import type { StoredCheckRun } from './repo.js';

/** What GitHub takes in a request to create or update a check run. https://docs.github.com/rest/checks/runs */

/** Conclusions a creator may set (only GitHub sets `stale`). */
const CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'timed_out'];
/** Statuses a creator may set (`waiting`, `requested` and `pending` are GitHub Actions' own). */
export const STATUSES = ['queued', 'in_progress', 'completed'];
const LEVELS = ['notice', 'warning', 'failure'];
/** output.summary and output.text: "Maximum length: 65535 characters" (create and update a check run). */
const MAX_TEXT = 65_535;
/** "The Checks API limits the number of annotations to a maximum of 50 per API request." */
const MAX_ANNOTATIONS = 50;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function optionalText(body: Record<string, unknown>, name: string, max = MAX_TEXT): string | null {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw validationFailed('CheckRun', name, 'invalid');
  if ([...value].length > max)
    throw validationFailed('CheckRun', name, 'custom', `${name} is too long (maximum is ${max} characters)`);
  return value;
}

export function time(body: Record<string, unknown>, name: string): string | null {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !ISO.test(value) || Number.isNaN(Date.parse(value)))
    throw validationFailed('CheckRun', name, 'invalid');
  return value;
}

export function annotationsOf(output: Record<string, unknown>): Array<Record<string, unknown>> {
  const list = output.annotations ?? [];
  if (!Array.isArray(list)) throw validationFailed('CheckRun', 'annotations', 'invalid');
  if (list.length > MAX_ANNOTATIONS)
    throw unprocessable(`Only ${MAX_ANNOTATIONS} annotations are allowed per request`);
  return list.map((raw: unknown) => {
    const a = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const valid =
      typeof a.path === 'string' &&
      a.path !== '' &&
      Number.isInteger(a.start_line) &&
      Number.isInteger(a.end_line) &&
      (a.end_line as number) >= (a.start_line as number) &&
      typeof a.annotation_level === 'string' &&
      LEVELS.includes(a.annotation_level) &&
      typeof a.message === 'string' &&
      a.message !== '' &&
      (a.title === undefined || typeof a.title === 'string');
    if (!valid) throw validationFailed('CheckRun', 'annotations', 'invalid');
    return a;
  });
}

/** The `output` object: title and summary required when given at all. */
export function outputOf(body: Record<string, unknown>): Record<string, unknown> | null {
  if (body.output === undefined) return null;
  const output = body.output;
  if (typeof output !== 'object' || output === null || Array.isArray(output))
    throw validationFailed('CheckRun', 'output', 'invalid');
  const o = output as Record<string, unknown>;
  if (typeof o.title !== 'string' || o.title === '')
    throw validationFailed('CheckRun', 'title', 'missing_field');
  if (typeof o.summary !== 'string' || o.summary === '')
    throw validationFailed('CheckRun', 'summary', 'missing_field');
  return o;
}

/** Status and conclusion together: a conclusion completes the run; completed (or completed_at) needs one. */
export function outcome(
  body: Record<string, unknown>,
  current: Pick<StoredCheckRun, 'status' | 'conclusion'> | null,
): { status: string; conclusion: string | null } {
  if (body.status !== undefined && (typeof body.status !== 'string' || !STATUSES.includes(body.status)))
    throw validationFailed('CheckRun', 'status', 'invalid');
  const conclusion = body.conclusion;
  if (conclusion !== undefined && (typeof conclusion !== 'string' || !CONCLUSIONS.includes(conclusion)))
    throw validationFailed('CheckRun', 'conclusion', 'invalid');
  if (typeof conclusion === 'string') return { status: 'completed', conclusion };
  if (body.status === 'completed' || body.completed_at !== undefined) {
    if (current?.conclusion) return { status: 'completed', conclusion: current.conclusion };
    throw validationFailed('CheckRun', 'conclusion', 'missing_field');
  }
  return {
    status: typeof body.status === 'string' ? body.status : (current?.status ?? 'queued'),
    conclusion: current?.conclusion ?? null,
  };
}
